// Batches of world steps on libuv's thread pool.
#include "stepper.h"

#include "frame.h"
#include "log.h"
#include "server.h"
#include "world_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct step_job
{
	uv_work_t work;
	stepper* st;
	sn_step_scratch* scratch; // NULL: each world steps with its own
	int count;
	world_host* hosts[];
} step_job;

void step_item_run(world_host* host, sn_step_scratch* scratch)
{
	step_item* item = &host->step;
	uint64_t t0 = server_now_ns();
	uint64_t now = t0;
	for (item->done = 0; item->done < item->steps;)
	{
		// Shutdown: no step starts after the cutoff (one clock read per step only once it is set).
		uint64_t cutoff = atomic_load_explicit(&host->srv->stepper.cutoff_ns, memory_order_relaxed);
		if (cutoff != 0 && server_now_ns() >= cutoff)
		{
			item->interrupted = true;
			break;
		}
		controller_step(&host->controller, host->world);
		sn_error err = sn_world_step_with(host->world, scratch);
		if (err != SN_ERR_OK)
		{
			item->error = (int32_t)err;
			snprintf(item->detail, sizeof(item->detail), "%s", sn_world_last_error_detail(host->world));
			break;
		}
		contact_log_record(&host->contacts, host->world);
		item->done += 1;
		if (item->deadline_ns != 0)
		{
			now = server_now_ns();
			if (now >= item->deadline_ns)
			{
				break;
			}
		}
	}
	now = server_now_ns();
	item->elapsed_ns = now - t0;
	item->time = sn_world_get_time(host->world);
	item->time_step = sn_world_get_time_step(host->world);
	item->step_count = sn_world_get_step_count(host->world);
	item->diverged = sn_world_is_diverged(host->world);
	int max_contacts = (int)host->srv->config.limits.max_contacts_per_frame;
	for (int word = 0; word < STEP_MASK_WORDS; ++word)
	{
		for (uint64_t bits = item->masks[word]; bits != 0; bits &= bits - 1)
		{
			uint32_t m = (uint32_t)(word * 64 + __builtin_ctzll(bits));
			if (m != 0)
			{
				item->frames[m] = frame_encode(host->world, host->id, m, max_contacts, now);
			}
		}
	}
}

static void run_job(uv_work_t* work)
{
	step_job* job = work->data;
	for (int i = 0; i < job->count; ++i)
	{
		// The next world's memory comes in while this one steps (sinew/world.h, sn_world_prefetch). What
		// that needs is asked for ahead too: the head of the world after it, where its plan lies, and
		// the host line that says where the world after that is.
		if (i + 3 < job->count)
		{
			__builtin_prefetch(&job->hosts[i + 3]->world, 0, 3);
		}
		if (i + 2 < job->count)
		{
			const char* head = (const char*)job->hosts[i + 2]->world;
			for (int offset = 0; offset < SN_WORLD_PREFETCH_HEAD; offset += 64)
			{
				__builtin_prefetch(head + offset, 0, 3);
			}
		}
		if (i + 1 < job->count)
		{
			sn_world_prefetch(job->hosts[i + 1]->world);
		}
		step_item_run(job->hosts[i], job->scratch);
	}
}

// A scratch for a job: a free one, or a new one (NULL if that fails: its worlds then use their own).
static sn_step_scratch* scratch_take(stepper* st)
{
	if (st->scratch_count > 0)
	{
		return st->scratch_pool[--st->scratch_count];
	}
	sn_step_scratch* scratch = NULL;
	return sn_step_scratch_create(NULL, &scratch) == SN_ERR_OK ? scratch : NULL;
}

// Back to the pool when the job is done; freed if the stepper has closed or the pool cannot grow.
static void scratch_give(stepper* st, sn_step_scratch* scratch)
{
	if (scratch == NULL)
	{
		return;
	}
	if (st->open && st->scratch_count == st->scratch_capacity)
	{
		int capacity = st->scratch_capacity > 0 ? 2 * st->scratch_capacity : 4;
		sn_step_scratch** pool = realloc(st->scratch_pool, (size_t)capacity * sizeof(*pool));
		if (pool != NULL)
		{
			st->scratch_pool = pool;
			st->scratch_capacity = capacity;
		}
	}
	if (st->open && st->scratch_count < st->scratch_capacity)
	{
		st->scratch_pool[st->scratch_count++] = scratch;
	}
	else
	{
		sn_step_scratch_destroy(scratch);
	}
}

static void job_done(uv_work_t* work, int status)
{
	(void)status;
	step_job* job = work->data;
	stepper* st = job->st;
	st->jobs_in_flight -= 1;
	scratch_give(st, job->scratch);
	st->srv->metrics.step_batches += 1;
	for (int i = 0; i < job->count; ++i)
	{
		world_host_step_finished(job->hosts[i]);
	}
	free(job);
}

// Share the batch out to at most `workers` jobs of about equal estimated cost (longest first, each to
// the least loaded job).
static void flush(stepper* st)
{
	int n = st->batch_count;
	if (n == 0)
	{
		return;
	}
	st->batch_count = 0;
	int jobs = n < st->workers ? n : st->workers;
	step_job* job[64];
	double load[64];
	if (jobs > 64)
	{
		jobs = 64;
	}
	for (int j = 0; j < jobs; ++j)
	{
		job[j] = malloc(sizeof(step_job) + (size_t)n * sizeof(world_host*));
		load[j] = 0.0;
		if (job[j] == NULL)
		{
			jobs = j;
			break;
		}
		job[j]->st = st;
		job[j]->scratch = scratch_take(st);
		job[j]->count = 0;
		job[j]->work.data = job[j];
	}
	if (jobs == 0)
	{
		// No memory for a job: step them here rather than leave them busy forever.
		for (int i = 0; i < n; ++i)
		{
			stepper_run_inline(st, st->batch[i]);
		}
		return;
	}
	// Longest first: a simple sort by estimated cost, descending.
	for (int i = 1; i < n; ++i)
	{
		world_host* h = st->batch[i];
		double c = h->step_ns_avg * h->step.steps;
		int k = i;
		while (k > 0 && st->batch[k - 1]->step_ns_avg * st->batch[k - 1]->step.steps < c)
		{
			st->batch[k] = st->batch[k - 1];
			k -= 1;
		}
		st->batch[k] = h;
	}
	for (int i = 0; i < n; ++i)
	{
		world_host* h = st->batch[i];
		int best = 0;
		for (int j = 1; j < jobs; ++j)
		{
			if (load[j] < load[best])
			{
				best = j;
			}
		}
		job[best]->hosts[job[best]->count++] = h;
		load[best] += h->step_ns_avg * h->step.steps;
	}
	for (int j = 0; j < jobs; ++j)
	{
		if (uv_queue_work(st->srv->loop, &job[j]->work, run_job, job_done) == 0)
		{
			st->jobs_in_flight += 1;
		}
		else
		{
			run_job(&job[j]->work);
			st->jobs_in_flight += 1;
			job_done(&job[j]->work, 0);
		}
	}
}

static void on_check(uv_check_t* check)
{
	stepper* st = check->data;
	uv_idle_stop(&st->idle);
	flush(st);
}

static void on_idle(uv_idle_t* idle)
{
	(void)idle;
}

int stepper_init(stepper* st, server* srv, int workers)
{
	memset(st, 0, sizeof(*st));
	atomic_init(&st->cutoff_ns, 0);
	st->srv = srv;
	st->workers = workers > 0 ? workers : 1;
	uv_check_init(srv->loop, &st->check);
	uv_idle_init(srv->loop, &st->idle);
	st->check.data = st;
	st->idle.data = st;
	uv_check_start(&st->check, on_check);
	// The check handle alone must not keep the loop alive.
	uv_unref((uv_handle_t*)&st->check);
	st->open = true;
	return 0;
}

void stepper_set_cutoff(stepper* st, uint64_t cutoff_ns)
{
	atomic_store_explicit(&st->cutoff_ns, cutoff_ns != 0 ? cutoff_ns : 1u, memory_order_relaxed);
}

void stepper_close(stepper* st)
{
	if (!st->open)
	{
		return;
	}
	st->open = false;
	uv_close((uv_handle_t*)&st->check, NULL);
	uv_close((uv_handle_t*)&st->idle, NULL);
	free(st->batch);
	st->batch = NULL;
	st->batch_capacity = 0;
	// Jobs still in flight free theirs when they are done (scratch_give).
	for (int i = 0; i < st->scratch_count; ++i)
	{
		sn_step_scratch_destroy(st->scratch_pool[i]);
	}
	free(st->scratch_pool);
	st->scratch_pool = NULL;
	st->scratch_count = 0;
	st->scratch_capacity = 0;
	sn_step_scratch_destroy(st->inline_scratch);
	st->inline_scratch = NULL;
}

void stepper_submit(stepper* st, world_host* host)
{
	if (!st->open)
	{
		stepper_run_inline(st, host);
		return;
	}
	if (st->batch_count == st->batch_capacity)
	{
		int capacity = st->batch_capacity > 0 ? 2 * st->batch_capacity : 16;
		world_host** batch = realloc(st->batch, (size_t)capacity * sizeof(world_host*));
		if (batch == NULL)
		{
			stepper_run_inline(st, host);
			return;
		}
		st->batch = batch;
		st->batch_capacity = capacity;
	}
	st->batch[st->batch_count++] = host;
	// Keep the loop from blocking in poll before the check phase flushes the batch.
	uv_idle_start(&st->idle, on_idle);
}

void stepper_run_inline(stepper* st, world_host* host)
{
	if (st->open && st->inline_scratch == NULL && sn_step_scratch_create(NULL, &st->inline_scratch) != SN_ERR_OK)
	{
		st->inline_scratch = NULL;
	}
	step_item_run(host, st->open ? st->inline_scratch : NULL);
	world_host_step_finished(host);
}
