// The benchmarks' clock.
#ifndef SINEW_BENCH_CLOCK_H
#define SINEW_BENCH_CLOCK_H

// Monotonic clock, seconds.
double bench_now(void);

#endif
