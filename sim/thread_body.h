// How every SystemC thread of the model runs its body: an error it throws is handed to `fail`
// (which records it and stops the run), and the kernel's sc_unwind_exception passes through.
//
// The kernel kills the threads still waiting at the end of a run by throwing
// sc_unwind_exception through them. The usual idiom, `catch (sc_unwind_exception&) { throw; }`
// ahead of `catch (std::exception&)`, rethrows it from the thread's coroutine stack after the
// frames below have been unwound. Under AddressSanitizer every throw first calls
// __asan_handle_no_return, which cannot find a coroutine's stack bounds; on some memory layouts
// its own locals then land on the redzones those unwound frames left poisoned, and ASan fails
// its internal CHECK (asan_thread.cpp, kCurrentStackFrameMagic) in whichever test it happens.
// So the handlers below name the error families our code throws and never catch the unwind.
// Anything else derived from std::exception reaches the kernel, and sc_start reports it.
// The body runs on a stack cleared of stale sanitizer poison (sim/coroutine_stack.h).
#pragma once
#include <new>
#include <stdexcept>
#include <utility>

#include "sim/coroutine_stack.h"

namespace npu::sim {

template <class Body, class Fail>
void run_thread_body(Body&& body, Fail&& fail) {
  forget_stale_stack_poison();
  try {
    std::forward<Body>(body)();
  } catch (const std::runtime_error& e) {
    fail(e.what());
  } catch (const std::logic_error& e) {
    fail(e.what());
  } catch (const std::bad_alloc& e) {
    fail(e.what());
  }
}

}  // namespace npu::sim
