// Counters for /metrics (Prometheus text format 0.0.4): connections, worlds, steps and step time,
// frames sent and dropped, commands by type and error code. Loop thread only (the workers report their
// step times through the stepper's completion, which runs on the loop).
#ifndef SINEW_SERVER_METRICS_H
#define SINEW_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct server;

enum
{
	METRICS_TRANSPORTS = 2, // 0 tcp, 1 ws
	METRICS_STEP_BUCKETS = 12
};

typedef struct metrics
{
	int64_t connections_open[METRICS_TRANSPORTS];
	uint64_t connections_total[METRICS_TRANSPORTS];
	uint64_t connections_refused;
	uint64_t connection_yields;          // a connection used its share of a loop pass and waited for the next
	uint64_t sessions_closed_with_error; // closed by the server with a reason
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t messages_in;
	uint64_t steps_total;
	uint64_t step_batches;
	double step_seconds_sum;                     // wall time inside sn_world_step, s
	uint64_t step_buckets[METRICS_STEP_BUCKETS]; // per step, cumulative at render time
	uint64_t frames_encoded;
	uint64_t frames_sent;
	uint64_t frames_dropped;
	uint64_t worlds_created;
	uint64_t worlds_diverged;
	uint64_t lockstep_ticks;
	uint64_t lockstep_demotions;
	uint64_t lag_resets;
	uint64_t http_requests;
	uint64_t state_saves;           // kept worlds written to the state directory
	uint64_t state_save_failures;   // writes (or removals) that failed
	uint64_t state_worlds_restored; // at start
	uint64_t* commands;             // [command index][error index]
	int command_count;
	int code_count;
} metrics;

// Upper bounds of the step time buckets, s.
extern const double metrics_step_bucket_bounds[METRICS_STEP_BUCKETS];

int metrics_init(metrics* m);
void metrics_free(metrics* m);
void metrics_count_command(metrics* m, int command_index, int32_t code);
// `steps` steps took `seconds` in total.
void metrics_count_steps(metrics* m, uint32_t steps, double seconds);

// Render the Prometheus text into a new malloc'd buffer; *size receives its length. NULL if out of memory.
char* metrics_render(const struct server* srv, size_t* size);

#endif
