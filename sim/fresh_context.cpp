// The one place that steps outside the SystemC standard: replacing the global simulation
// context. sc_curr_simcontext / sc_default_global_context are the kernel's own globals in
// the Accellera implementation (2.3.x); swapping them gives a brand-new kernel whose
// elaboration and time start from zero. Verified by the 200-runs-in-one-process test.
#include "sim/fresh_context.h"

#include <cstdlib>

#include <systemc>

namespace npu::sim {
namespace {

// Before any SystemC object is built (static initialisation of this library): the banner
// is printed once, when the first kernel is set up.
const bool kBannerOff = [] {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return true;
}();

constexpr sc_core::sc_severity kSeverities[4] = {sc_core::SC_INFO, sc_core::SC_WARNING, sc_core::SC_ERROR,
                                                 sc_core::SC_FATAL};

}  // namespace

FreshSystemcContext::FreshSystemcContext()
    : previous_(sc_core::sc_curr_simcontext), previous_default_(sc_core::sc_default_global_context) {
  (void)kBannerOff;
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  mine_ = new sc_core::sc_simcontext;
  sc_core::sc_curr_simcontext = mine_;
  sc_core::sc_default_global_context = mine_;
  const sc_core::sc_actions actions[4] = {sc_core::SC_DO_NOTHING, sc_core::SC_DO_NOTHING, sc_core::SC_THROW,
                                          sc_core::SC_THROW};
  for (int i = 0; i < 4; ++i) saved_actions_[i] = sc_core::sc_report_handler::set_actions(kSeverities[i], actions[i]);
}

FreshSystemcContext::~FreshSystemcContext() {
  delete mine_;
  sc_core::sc_curr_simcontext = previous_;
  sc_core::sc_default_global_context = previous_default_;
  for (int i = 0; i < 4; ++i) sc_core::sc_report_handler::set_actions(kSeverities[i], saved_actions_[i]);
}

}  // namespace npu::sim
