#define _POSIX_C_SOURCE 199309L
#include "clock.h"

#include <stdlib.h>
#include <time.h>

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fixed_repeats; // 0: by wall time

void bench_set_repeats(int count)
{
	fixed_repeats = count < 0 ? 0 : (count > BENCH_MAX_REPEATS ? BENCH_MAX_REPEATS : count);
}

bool bench_repeat_more(const double* seconds, int count)
{
	if (fixed_repeats > 0)
	{
		return count < fixed_repeats;
	}
	if (count < BENCH_MIN_REPEATS)
	{
		return true;
	}
	if (count >= BENCH_MAX_REPEATS)
	{
		return false;
	}
	double total = 0.0;
	for (int i = 0; i < count; ++i)
	{
		total += seconds[i];
	}
	return total < BENCH_MIN_WALL_S;
}

static int compare_doubles(const void* a, const void* b)
{
	const double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

double bench_median(double* values, int count)
{
	qsort(values, (size_t)count, sizeof(double), compare_doubles);
	return count % 2 == 1 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}
