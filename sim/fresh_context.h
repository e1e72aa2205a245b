// Lets simulate() elaborate a new design on every call (SystemC normally allows one
// elaboration per process) and keeps SystemC quiet: no banner, warnings and infos dropped,
// errors thrown (simulate() turns them into SimError).
#pragma once

namespace sc_core {
class sc_simcontext;
}

namespace npu::sim {

// While alive, a fresh SystemC kernel is the current one; on destruction the kernel is
// deleted and the previous one restored. Create it before any module of the run and
// destroy every module before it.
class FreshSystemcContext {
 public:
  FreshSystemcContext();
  ~FreshSystemcContext();
  FreshSystemcContext(const FreshSystemcContext&) = delete;
  FreshSystemcContext& operator=(const FreshSystemcContext&) = delete;

 private:
  sc_core::sc_simcontext* previous_;
  sc_core::sc_simcontext* previous_default_;
  sc_core::sc_simcontext* mine_;
  unsigned saved_actions_[4];
};

}  // namespace npu::sim
