#include "sim/coroutine_stack.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPUSIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NPUSIM_ASAN 1
#endif

#ifdef NPUSIM_ASAN
#include <sanitizer/asan_interface.h>

#include <pthread.h>
#include <sanitizer/common_interface_defs.h>

#include <cstdint>
#include <cstdio>
#endif

namespace npu::sim {

#ifdef NPUSIM_ASAN
namespace {

// Nothing here may hand a stack address to an intercepted libc call: the interceptor would
// check it against the very shadow this clears. The line buffer is thread-local for that.
__attribute__((no_sanitize("address"))) std::uintptr_t parse_hex(const char*& p) {
  std::uintptr_t v = 0;
  for (;; ++p) {
    const char c = *p;
    if (c >= '0' && c <= '9') v = v * 16 + static_cast<std::uintptr_t>(c - '0');
    else if (c >= 'a' && c <= 'f') v = v * 16 + static_cast<std::uintptr_t>(c - 'a' + 10);
    else return v;
  }
}

}  // namespace

// The mapping that holds the frame is the stack: SystemC maps each one separately.
__attribute__((no_sanitize("address"))) void forget_stale_stack_poison() {
  thread_local char line[512];
  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  while (std::fgets(line, sizeof line, maps)) {
    const char* p = line;
    const std::uintptr_t begin = parse_hex(p);
    if (*p++ != '-') continue;
    const std::uintptr_t end = parse_hex(p);
    if (begin <= frame && frame < end) {
      ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void*>(begin), frame - begin);
      break;
    }
  }
  std::fclose(maps);
}

// A switch from this stack to itself: start names the thread's own stack as the next one,
// finish makes it the current one.
ThreadStackBoundsRestorer::~ThreadStackBoundsRestorer() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* bottom = nullptr;
  std::size_t size = 0;
  const bool known = pthread_attr_getstack(&attr, &bottom, &size) == 0;
  pthread_attr_destroy(&attr);
  if (!known) return;
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
  forget_stale_stack_poison();
}
#else
void forget_stale_stack_poison() {}
ThreadStackBoundsRestorer::~ThreadStackBoundsRestorer() = default;
#endif

}  // namespace npu::sim
