// The benchmarks' clock, and repeated timings of runs too short to time once.
#ifndef SINEW_BENCH_CLOCK_H
#define SINEW_BENCH_CLOCK_H

#include <stdbool.h>

// Monotonic clock, seconds.
double bench_now(void);

// Repetitions of one timed run: a run of a few milliseconds timed once measures the machine's moment (a
// page fault, a clock ramping up, a neighbour on a shared host) as much as the code. Each run is timed
// alone; repeat while bench_repeat_more says so, and report the median (and the fastest).
enum
{
	BENCH_MIN_REPEATS = 3,
	BENCH_MAX_REPEATS = 200,
};
// Until the runs add up to at least 0.5 s of wall time, at least BENCH_MIN_REPEATS and at most
// BENCH_MAX_REPEATS of them; or exactly the count set by bench_set_repeats (1 to BENCH_MAX_REPEATS; 0, the
// default, for the rule above), so that a profile covers a known number of steps.
#define BENCH_MIN_WALL_S 0.5
bool bench_repeat_more(const double* seconds, int count);
void bench_set_repeats(int count);
// The median of count values (count >= 1; the array is sorted in place).
double bench_median(double* values, int count);

#endif
