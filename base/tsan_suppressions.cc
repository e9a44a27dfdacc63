// ThreadSanitizer suppressions compiled into every binary of a TSan build
// (linked with the instrumented Abseil), so no environment variable is needed.
//
// One entry, for Abseil's internals only: a thread's absl::Mutex identity
// (its PerThreadSynch and futex word) lives in memory LowLevelAlloc obtained
// with mmap on that thread; another thread waking it writes the futex word.
// The hand-off between the two goes through the mutex's internal atomics,
// which Abseil deliberately hides from TSan, so TSan pairs the mmap with the
// later wake-up and reports a race that cannot happen. Races in our code are
// never matched: the pattern names only Abseil's arena allocator.

extern "C" const char* __tsan_default_suppressions() {
  return "race:absl::*base_internal::LowLevelAlloc::Alloc\n";
}
