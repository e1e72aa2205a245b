// SystemC runs each thread on a stack it maps itself (with a guard page) and unmaps when the
// thread is gone. AddressSanitizer does not know these stacks: the redzones of frames that an
// exception unwound through (the kernel's sc_unwind_exception kills every waiting thread at
// the end of a run) stay poisoned in its shadow after the unmap, and the next run's stack can
// be mapped at the same address. ASan then reports its own uninstrumented locals there as bad
// accesses (seen as "CHECK failed: asan_thread.cpp ... kCurrentStackFrameMagic" from
// __asan_handle_no_return), in whichever test the address reuse happens to hit.
#pragma once

namespace npu::sim {

// Clears the shadow of the current coroutine stack below the caller's frame. Every model
// thread calls it first; it does nothing outside AddressSanitizer builds.
void forget_stale_stack_poison();

// SystemC 2.3.4 announces its coroutine switches to AddressSanitizer
// (__sanitizer_start_switch_fiber), and after a run ASan can be left believing the thread runs
// on a coroutine's stack: it then ignores every later exception's request to clear the frames
// the exception unwinds ("ASan is ignoring requested __asan_handle_no_return"), their poison
// stays, and a later call that reuses those addresses is reported as a stack-use-after-scope
// (seen by the sim fuzz target in isa::deserialize). When it goes out of scope this tells ASan
// again that the thread is on its own stack, and clears what exceptions thrown on this stack
// while ASan looked elsewhere left below the caller's frame. Scope it around sc_start and around
// the SystemC context (whose end switches coroutines again). Nothing outside AddressSanitizer
// builds.
class ThreadStackBoundsRestorer {
 public:
  ThreadStackBoundsRestorer() = default;
  ThreadStackBoundsRestorer(const ThreadStackBoundsRestorer&) = delete;
  ThreadStackBoundsRestorer& operator=(const ThreadStackBoundsRestorer&) = delete;
  ~ThreadStackBoundsRestorer();
};

}  // namespace npu::sim
