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

}  // namespace npu::sim
