// Server benchmark (issue 5): starts sinewd on loopback ports chosen free and measures
//   1. round-trip latency of `step 1` (p50, p99, p99.9 over --requests requests, default 10,000) for an
//      empty world and for the 7-link driven arm (an articulation with stiff PD drives, as in
//      bench_articulation), and for comparison a 7-link maximal-coordinate hinge chain with servos;
//   2. state frames delivered per second and their latency (server clock at encoding to client receipt,
//      both CLOCK_MONOTONIC on this host) to 1, 10 and 100 WebSocket clients subscribed at 60 Hz to a
//      50-link articulation stepping in real time at 1 kHz, while one more client reads nothing at all;
//   3. how many 10-link articulations, each in its own world, the server keeps in real time at 1 kHz
//      (each reaches >= 99% of its scheduled steps over the measurement window, with no lag reset),
//      swinging freely and held by PD drives on every dof, with the server's CPU time (all threads) per
//      world step at each count tried: below capacity it is what a step costs the server, whatever the
//      machine's other load leaves over.
// Prints a table and BENCH key=value lines. The figures depend on the machine and its load.
#define _GNU_SOURCE
#include "harness.h"

#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct options
{
	int requests;
	double stream_seconds;
	int max_worlds;
	double capacity_seconds;
	int clients[3];
	int client_sets;
} options;

// A client as the measurements want it: a deep queue, and a small receive buffer for the reader that
// falls behind (rcvbuf > 0).
static snc_client* connect_to(const test_server* s, snc_transport transport, int rcvbuf)
{
	snc_options o = snc_default_options();
	o.transport = transport;
	o.receive_buffer_bytes = rcvbuf;
	o.queue_capacity = 4096;
	return test_connect_with(s, o, "bench", sinew_v1_Role_ROLE_CONTROLLER);
}

// ---- scenes -------------------------------------------------------------------------------------------

// A chain of n links of length `link` (m) hinged about world y from the origin along +x (horizontal,
// released to swing) or +z (upright, held by servos). With servo_hz > 0 every hinge is a spring servo
// towards 0 rad (a driven arm).
static void build_chain(snc_client* c, uint64_t world, int n, double link, bool upright, double servo_hz)
{
	const double h = sqrt(0.5);
	uint64_t previous = 0;
	for (int i = 0; i < n; ++i)
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_body_tag;
		m.command.create_body.world_id = world;
		m.command.create_body.has_body = true;
		m.command.create_body.body.has_pose = true;
		m.command.create_body.body.pose.has_position = true;
		double along = link * (i + 0.5);
		m.command.create_body.body.pose.position.x = upright ? 0.0 : along;
		m.command.create_body.body.pose.position.z = upright ? along : 0.0;
		m.command.create_body.body.has_inertia = true;
		double l2 = link * link / 12.0;
		m.command.create_body.body.inertia = (sinew_v1_Inertia){ l2, l2, l2, 0, 0, 0 };
		uint64_t body = test_created(c, &m);
		m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_joint_tag;
		sinew_v1_CreateJoint* j = &m.command.create_joint;
		j->world_id = world;
		j->has_base = true;
		j->base.body_a = previous;
		j->base.body_b = body;
		double half = 0.5 * link;
		j->base.has_frame_a = true;
		j->base.frame_a.has_position = true;
		j->base.frame_a.position.x = upright ? 0.0 : (previous == 0 ? 0.0 : half);
		j->base.frame_a.position.z = upright ? (previous == 0 ? 0.0 : half) : 0.0;
		j->base.frame_a.has_rotation = true;
		j->base.frame_a.rotation = (sinew_v1_Quat){ 0, 0, h, h }; // joint x onto world y
		j->base.has_frame_b = true;
		j->base.frame_b.has_position = true;
		j->base.frame_b.position.x = upright ? 0.0 : -half;
		j->base.frame_b.position.z = upright ? -half : 0.0;
		j->base.frame_b.has_rotation = true;
		j->base.frame_b.rotation = (sinew_v1_Quat){ 0, 0, h, h };
		j->which_type = sinew_v1_CreateJoint_hinge_tag;
		if (servo_hz > 0)
		{
			j->type.hinge.has_spring = true;
			j->type.hinge.spring.enabled = true;
			j->type.hinge.spring.target = 0.1 * (i % 2 == 0 ? 1 : -1);
			j->type.hinge.spring.has_soft = true;
			j->type.hinge.spring.soft.kind = sinew_v1_SoftKind_SOFT_FREQUENCY;
			j->type.hinge.spring.soft.frequency_hz = servo_hz;
			j->type.hinge.spring.soft.damping_ratio = 1.0;
		}
		test_created(c, &m);
		previous = body;
	}
}

// A fixed-base articulation of n revolute links of length `link` (m, 1 kg, thin boxes) along x, the
// joint axes alternating between y and z. With kp > 0 every joint has a PD drive (N*m/rad, N*m*s/rad)
// towards `target` rad (the 7-link driven arm of bench_articulation: kp 1e6, kd 1e3, 0.5 rad).
static void build_articulation(snc_client* c, uint64_t world, int n, double link, double kp, double kd, double target)
{
	const double s = sqrt(0.5);
	sinew_v1_LinkDef* links = calloc((size_t)n + 1, sizeof(sinew_v1_LinkDef));
	for (int i = 0; i <= n; ++i)
	{
		sinew_v1_LinkDef* l = links + i;
		*l = (sinew_v1_LinkDef)sinew_v1_LinkDef_init_zero;
		l->parent = i - 1;
		l->has_mass = true;
		l->mass = 1.0;
		double along = (link * link + 0.05 * 0.05) / 12.0, across = 2 * 0.05 * 0.05 / 12.0;
		l->has_inertia = true;
		l->inertia = (sinew_v1_Inertia){ across, along, along, 0, 0, 0 };
		l->has_center_of_mass = true;
		l->center_of_mass.x = 0.5 * link;
		if (i == 0)
		{
			continue;
		}
		l->joint_type = sinew_v1_LinkJointType_LINK_REVOLUTE;
		// x onto y (about z) for odd links, x onto z (about y) for even ones.
		sinew_v1_Quat axis = i % 2 == 1 ? (sinew_v1_Quat){ 0, 0, s, s } : (sinew_v1_Quat){ 0, -s, 0, s };
		l->has_parent_frame = true;
		l->parent_frame.has_position = true;
		l->parent_frame.position.x = i == 1 ? 0.0 : link;
		l->parent_frame.has_rotation = true;
		l->parent_frame.rotation = axis;
		l->has_child_frame = true;
		l->child_frame.has_rotation = true;
		l->child_frame.rotation = axis;
		if (kp > 0)
		{
			l->drives_count = 1;
			l->drives[0].enabled = true;
			l->drives[0].stiffness = kp;
			l->drives[0].damping = kd;
			l->drives[0].target_position = target;
		}
	}
	uint64_t id = 0;
	uint32_t dofs = 0;
	if (test_create_articulation(c, world, links, n + 1, &id, &dofs) != 0)
	{
		test_harness_fail("bench_server: create_articulation of %d links failed", n + 1);
	}
	free(links);
}

// ---- statistics ---------------------------------------------------------------------------------------

static int compare_u64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : x > y;
}

static double percentile(const uint64_t* sorted, size_t n, double p)
{
	if (n == 0)
	{
		return NAN;
	}
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return (double)sorted[i < n ? i : n - 1];
}

// ---- CPU placement -------------------------------------------------------------------------------------

// Pin every thread of a process (0: this one) to one CPU, or (cpu < 0) allow all again. On a virtual
// machine a request that wakes a thread on another, idle CPU waits for that CPU to wake up (tens of
// microseconds), so the round trip is measured both ways: where the scheduler puts things, and with
// client and server on one CPU (the software's own cost).
static void place_process(pid_t pid, int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	for (int c = 0; c < cores; ++c)
	{
		if (cpu < 0 || c == cpu)
		{
			CPU_SET(c, &set);
		}
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid == 0 ? (int)getpid() : (int)pid);
	DIR* dir = opendir(path);
	if (dir == NULL)
	{
		return;
	}
	for (struct dirent* e = readdir(dir); e != NULL; e = readdir(dir))
	{
		if (e->d_name[0] != '.')
		{
			sched_setaffinity((pid_t)atoi(e->d_name), sizeof(set), &set);
		}
	}
	closedir(dir);
}

// ---- 1. step latency ----------------------------------------------------------------------------------

typedef enum scene_kind
{
	SCENE_EMPTY,
	SCENE_ARM,   // 7-link articulation with PD drives
	SCENE_CHAIN, // 7-link maximal-coordinate hinge chain with servos
} scene_kind;

static void step_latency(const test_server* s, snc_transport transport, const char* scene, scene_kind kind,
						 int requests, bool one_cpu)
{
	if (one_cpu)
	{
		place_process(s->pid, 0);
		place_process(0, 0);
	}
	snc_client* c = connect_to(s, transport, 0);
	// Names are unique on a server, and the last run's world may not be gone yet.
	char name[64];
	snprintf(name, sizeof(name), "%s-%s%s", scene, transport == SNC_WS ? "ws" : "tcp", one_cpu ? "-1cpu" : "");
	uint64_t world = test_create_world(c, name);
	if (kind == SCENE_ARM)
	{
		build_articulation(c, world, 7, 0.3, 1e6, 1e3, 0.5);
	}
	else if (kind == SCENE_CHAIN)
	{
		build_chain(c, world, 7, 0.3, true, 10.0);
	}
	uint64_t* ns = malloc((size_t)requests * sizeof(uint64_t));
	int warmup = requests / 10;
	for (int i = 0; i < warmup + requests; ++i)
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_step_tag;
		m.command.step.world_id = world;
		m.command.step.count = 1;
		uint64_t t0 = snc_now_ns();
		snc_message r;
		test_expect(c, &m, 0, &r);
		uint64_t t1 = snc_now_ns();
		snc_message_free(&r);
		if (i >= warmup)
		{
			ns[i - warmup] = t1 - t0;
		}
	}
	qsort(ns, (size_t)requests, sizeof(uint64_t), compare_u64);
	double p50 = percentile(ns, (size_t)requests, 0.5) * 1e-3;
	double p99 = percentile(ns, (size_t)requests, 0.99) * 1e-3;
	double p999 = percentile(ns, (size_t)requests, 0.999) * 1e-3;
	const char* t = transport == SNC_WS ? "ws" : "tcp";
	const char* placement = one_cpu ? "one_cpu" : "scheduler";
	printf("  %-8s %-4s %-10s %7d %10.1f %10.1f %10.1f\n", scene, t, placement, requests, p50, p99, p999);
	printf("BENCH name=server_step1_latency scene=%s transport=%s placement=%s requests=%d p50_us=%.3f p99_us=%.3f "
		   "p999_us=%.3f\n",
		   scene, t, placement, requests, p50, p99, p999);
	if (one_cpu)
	{
		place_process(s->pid, -1);
		place_process(0, -1);
	}
	fflush(stdout);
	free(ns);
	snc_close(c);
}

// ---- 2. streaming -------------------------------------------------------------------------------------

// What the streaming clients subscribe to.
#define STREAM_INCLUDE (sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS)

typedef struct stream_client
{
	snc_client* c;
	int frames;
	uint64_t dropped;
	uint64_t* latency_ns;
	int latency_count;
	int latency_capacity;
} stream_client;

static void streaming(const test_server* s, uint64_t world, int count, double seconds)
{
	stream_client* clients = calloc((size_t)count, sizeof(stream_client));
	struct pollfd* fds = calloc((size_t)count, sizeof(struct pollfd));
	double dropped_before = test_metric(s, "sinew_frames_dropped_total", NULL);
	for (int i = 0; i < count; ++i)
	{
		clients[i].c = connect_to(s, SNC_WS, 0);
		test_subscribe(clients[i].c, world, 60.0, STREAM_INCLUDE);
		clients[i].latency_capacity = (int)(seconds * 80) + 64;
		clients[i].latency_ns = malloc((size_t)clients[i].latency_capacity * sizeof(uint64_t));
		fds[i].fd = snc_fd(clients[i].c);
		fds[i].events = POLLIN;
	}
	// Discard what came before the window, then count for `seconds`.
	uint64_t start = snc_now_ns() + 500000000u;
	uint64_t end = start + (uint64_t)(seconds * 1e9);
	for (;;)
	{
		uint64_t now = snc_now_ns();
		if (now >= end)
		{
			break;
		}
		poll(fds, (nfds_t)count, 10);
		for (int i = 0; i < count; ++i)
		{
			// Drain what is there (queued messages first, then the socket, without waiting).
			for (;;)
			{
				snc_message m;
				if (snc_receive(clients[i].c, &m, 0) != 0)
				{
					break;
				}
				if (m.msg.which_message == sinew_v1_ServerMessage_state_tag && m.received_ns >= start)
				{
					stream_client* sc = clients + i;
					sc->frames += 1;
					sc->dropped += m.msg.message.state.dropped;
					if (sc->latency_count < sc->latency_capacity)
					{
						sc->latency_ns[sc->latency_count++] = m.received_ns - m.msg.message.state.server_clock_ns;
					}
				}
				snc_message_free(&m);
			}
		}
	}
	double dropped_after = test_metric(s, "sinew_frames_dropped_total", NULL);
	// Aggregate.
	size_t total = 0;
	int min_frames = 1 << 30;
	uint64_t fast_dropped = 0;
	for (int i = 0; i < count; ++i)
	{
		total += (size_t)clients[i].latency_count;
		min_frames = clients[i].frames < min_frames ? clients[i].frames : min_frames;
		fast_dropped += clients[i].dropped;
	}
	uint64_t* all = malloc((total > 0 ? total : 1) * sizeof(uint64_t));
	size_t k = 0;
	double frames = 0;
	for (int i = 0; i < count; ++i)
	{
		memcpy(all + k, clients[i].latency_ns, (size_t)clients[i].latency_count * sizeof(uint64_t));
		k += (size_t)clients[i].latency_count;
		frames += clients[i].frames;
	}
	qsort(all, total, sizeof(uint64_t), compare_u64);
	double mean_fps = frames / count / seconds;
	double min_fps = min_frames / seconds;
	double p50 = percentile(all, total, 0.5) * 1e-6;
	double p99 = percentile(all, total, 0.99) * 1e-6;
	double slow_dropped = dropped_after - dropped_before;
	printf("  %7d %12.1f %12.1f %10.2f %10.2f %12llu %12.0f\n", count, mean_fps, min_fps, p50, p99,
		   (unsigned long long)fast_dropped, slow_dropped);
	printf("BENCH name=server_stream scene=articulation links=50 rate_hz=60 clients=%d slow_clients=1 seconds=%.1f "
		   "frames_per_s_mean=%.2f "
		   "frames_per_s_min=%.2f latency_p50_ms=%.3f latency_p99_ms=%.3f fast_frames_dropped=%llu "
		   "server_frames_dropped=%.0f\n",
		   count, seconds, mean_fps, min_fps, p50, p99, (unsigned long long)fast_dropped, slow_dropped);
	fflush(stdout);
	free(all);
	for (int i = 0; i < count; ++i)
	{
		free(clients[i].latency_ns);
		snc_close(clients[i].c);
	}
	free(clients);
	free(fds);
}

// ---- 3. real-time capacity ----------------------------------------------------------------------------

typedef struct world_counts
{
	uint64_t* ids;
	uint64_t* steps;
	uint64_t* resets;
	int count;
	int diverged;
} world_counts;

static void list_counts(snc_client* c, world_counts* w)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	snc_message r;
	test_expect(c, &m, 0, &r);
	for (int i = 0; i < w->count; ++i)
	{
		for (int k = 0; k < r.world_count; ++k)
		{
			if (r.worlds[k].world_id == w->ids[i])
			{
				w->steps[i] = r.worlds[k].step_count;
				w->resets[i] = r.worlds[k].lag_resets;
				w->diverged += r.worlds[k].diverged ? 1 : 0;
			}
		}
	}
	snc_message_free(&r);
}

// Are all `n` worlds in real time over `seconds`? *cpu_us: the server's CPU time per world step over it.
static bool all_realtime(const test_server* s, snc_client* c, world_counts* w, int n, double seconds, int* keeping,
						 double* cpu_us)
{
	world_counts before = { malloc((size_t)n * 8), malloc((size_t)n * 8), malloc((size_t)n * 8), n, 0 };
	memcpy(before.ids, w->ids, (size_t)n * 8);
	list_counts(c, &before);
	uint64_t t0 = snc_now_ns();
	double cpu0 = test_server_cpu_s(s);
	test_sleep_ms((int)(seconds * 1000));
	world_counts after = { before.ids, malloc((size_t)n * 8), malloc((size_t)n * 8), n, 0 };
	list_counts(c, &after);
	double cpu = test_server_cpu_s(s) - cpu0;
	if (after.diverged > 0)
	{
		printf("  (%d of the worlds diverged)\n", after.diverged);
	}
	double elapsed = (double)(snc_now_ns() - t0) * 1e-9;
	// The list is read in one request: its time is within a ms of t0 and of now.
	double expected = elapsed * 1000.0;
	int ok = 0;
	double steps = 0.0;
	for (int i = 0; i < n; ++i)
	{
		double got = (double)(after.steps[i] - before.steps[i]);
		steps += got;
		if (got >= 0.99 * expected - 2 && after.resets[i] == before.resets[i])
		{
			ok += 1;
		}
	}
	*keeping = ok;
	*cpu_us = steps > 0 ? 1e6 * cpu / steps : NAN;
	free(before.ids);
	free(before.steps);
	free(before.resets);
	free(after.steps);
	free(after.resets);
	return ok == n;
}

static void capacity(const test_server* s, int max_worlds, double seconds, bool driven)
{
	snc_client* c = connect_to(s, SNC_TCP, 0);
	// Ten 0.5 m links, swinging freely or held loosely by PD drives (a row per dof in the solver).
	uint64_t template = test_create_world(c, "template");
	build_articulation(c, template, 10, 0.5, driven ? 200.0 : 0.0, driven ? 2.0 : 0.0, 0.05);
	world_counts w = { calloc((size_t)max_worlds, 8), calloc((size_t)max_worlds, 8), calloc((size_t)max_worlds, 8), 0,
					   0 };
	int last_good = 0, keeping = 0;
	double cpu_us = NAN, good_cpu_us = NAN;
	int n = 25;
	int first_bad = 0;
	for (;;)
	{
		n = n > max_worlds ? max_worlds : n;
		// Add worlds up to n: clones of the template, each in real time.
		while (w.count < n)
		{
			sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
			m.which_command = sinew_v1_ClientMessage_clone_world_tag;
			m.command.clone_world.world_id = template;
			w.ids[w.count++] = test_created(c, &m);
		}
		// Every world's schedule starts again from now: a world still behind from a larger trial would
		// otherwise carry its backlog (up to max_catchup_ms) into this one.
		for (int i = 0; i < w.count; ++i)
		{
			test_set_mode(c, w.ids[i], sinew_v1_TimeMode_TIME_REALTIME, 1.0);
		}
		test_sleep_ms(500); // settle
		bool ok = all_realtime(s, c, &w, n, seconds, &keeping, &cpu_us);
		printf("  %7d %18d %-4s %16.2f\n", n, keeping, ok ? "yes" : "no", cpu_us);
		fflush(stdout);
		if (ok)
		{
			last_good = n;
			good_cpu_us = cpu_us;
			if (n == max_worlds)
			{
				break;
			}
			n = first_bad > 0 ? (n + first_bad) / 2 : 2 * n;
			if (first_bad > 0 && n <= last_good)
			{
				break;
			}
		}
		else
		{
			first_bad = n;
			if (first_bad - last_good <= (last_good / 10 > 5 ? last_good / 10 : 5))
			{
				break;
			}
			// Fewer worlds: destroy the newest ones.
			int target = (last_good + first_bad) / 2;
			while (w.count > target)
			{
				sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
				m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
				m.command.destroy_world.world_id = w.ids[--w.count];
				test_expect(c, &m, 0, NULL);
			}
			n = target;
			if (n <= last_good)
			{
				break;
			}
		}
	}
	// Leave the server as it was for the next run.
	for (int i = 0; i < w.count; ++i)
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
		m.command.destroy_world.world_id = w.ids[i];
		test_expect(c, &m, 0, NULL);
	}
	printf("BENCH name=server_realtime_capacity scene=articulation drives=%s links=10 rate_hz=1000 seconds=%.1f "
		   "worlds_realtime=%d first_failing=%d server_cpu_us_per_step=%.3f\n",
		   driven ? "pd" : "none", seconds, last_good, first_bad, good_cpu_us);
	free(w.ids);
	free(w.steps);
	free(w.resets);
	snc_close(c);
}

static void usage(void)
{
	fprintf(stderr,
			"usage: bench_server [--requests N] [--stream-seconds S] [--clients A,B,C] [--max-worlds N]\n"
			"                    [--capacity-seconds S] [--quick]\n");
}

int main(int argc, char** argv)
{
	signal(SIGPIPE, SIG_IGN);
	options o = { 10000, 3.0, 2000, 2.0, { 1, 10, 100 }, 3 };
	for (int i = 1; i < argc; ++i)
	{
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--requests") == 0 && v != NULL)
		{
			o.requests = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--stream-seconds") == 0 && v != NULL)
		{
			o.stream_seconds = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--max-worlds") == 0 && v != NULL)
		{
			o.max_worlds = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--capacity-seconds") == 0 && v != NULL)
		{
			o.capacity_seconds = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--clients") == 0 && v != NULL)
		{
			o.client_sets = sscanf(argv[++i], "%d,%d,%d", o.clients, o.clients + 1, o.clients + 2);
		}
		else if (strcmp(argv[i], "--quick") == 0)
		{
			o.requests = 2000;
			o.stream_seconds = 1.0;
			o.max_worlds = 100;
			o.capacity_seconds = 1.0;
		}
		else
		{
			usage();
			return 2;
		}
	}
	if (o.requests < 10 || o.stream_seconds <= 0 || o.max_worlds < 1 || o.capacity_seconds <= 0 || o.client_sets < 1)
	{
		usage();
		return 2;
	}
	// One sinewd for every measurement, many connections and worlds allowed; a request may wait 30 s.
	test_harness_configure(NULL, 30000);
	static const char* const server_args[] = {
		"--log-level=warn",    "--max-connections=1000",         "--max-connections-per-client=1000",
		"--max-worlds=100000", "--max-worlds-per-client=100000", NULL
	};
	test_server s;
	test_server_start(&s, server_args);
	printf("# sinewd server benchmark on loopback, %ld cores; figures are indicative on a shared machine\n",
		   sysconf(_SC_NPROCESSORS_ONLN));
	printf("# 1. round trip of `step 1` (us); placement: where the scheduler puts client and server, or both on CPU 0\n"
		   "#  %-8s %-4s %-10s %7s %10s %10s %10s\n",
		   "scene", "via", "placement", "count", "p50", "p99", "p99.9");
	for (int one_cpu = 0; one_cpu < 2; ++one_cpu)
	{
		step_latency(&s, SNC_TCP, "empty", SCENE_EMPTY, o.requests, one_cpu);
		step_latency(&s, SNC_WS, "empty", SCENE_EMPTY, o.requests, one_cpu);
		step_latency(&s, SNC_TCP, "arm7", SCENE_ARM, o.requests, one_cpu);
		step_latency(&s, SNC_TCP, "chain7", SCENE_CHAIN, o.requests, one_cpu);
	}

	printf("# 2. state frames at 60 Hz of a 50-link articulation (real time, 1 kHz) to N WebSocket clients + 1 that "
		   "never reads\n"
		   "#  %7s %12s %12s %10s %10s %12s %12s\n",
		   "clients", "frames/s", "min f/s", "p50 ms", "p99 ms", "fast drops", "slow drops");
	{
		snc_client* owner = connect_to(&s, SNC_TCP, 0);
		// Held by soft drives: released free, this chain of thin 0.1 m links blows up after about 9 s of
		// swinging (TGS, 1 ms), and a diverged world sends no more frames.
		uint64_t world = test_create_world(owner, "articulation50");
		build_articulation(owner, world, 50, 0.1, 200.0, 2.0, 0.05);
		test_set_mode(owner, world, sinew_v1_TimeMode_TIME_REALTIME, 1.0);
		// One client that never reads (a tiny receive buffer), there from the start: once the socket
		// buffers between it and the server are full, the server drops its frames (newest wins).
		snc_client* slow = connect_to(&s, SNC_WS, 4096);
		test_subscribe(slow, world, 60.0, STREAM_INCLUDE);
		for (int i = 0; i < o.client_sets; ++i)
		{
			streaming(&s, world, o.clients[i], o.stream_seconds);
		}
		snc_close(slow);
		snc_close(owner);
	}

	for (int driven = 0; driven < 2; ++driven)
	{
		printf("# 3%s. worlds of one 10-link articulation (%s) kept in real time at 1 kHz (each >= 99%% of its "
			   "steps over %.1f s)\n#  %7s %18s %-4s %16s\n",
			   driven ? "b" : "a", driven ? "PD drives on every dof" : "no drives", o.capacity_seconds, "worlds",
			   "in real time", "all", "cpu us/step");
		capacity(&s, o.max_worlds, o.capacity_seconds, driven != 0);
	}
	test_server_stop(&s);
	return 0;
}
