// sinew: the command-line client of sinewd. Subcommands are rows of one table (name, handler, usage);
// add a row to add one. `sinew sim MODEL.urdf` runs a model offline on the embedded core (sim.c).
//
//   sinew [--host H] [--port P] [--ws] [--token T] [--timeout MS] COMMAND [ARGS]
#define _POSIX_C_SOURCE 200809L
#include "sim.h"
#include "sinew_client.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli
{
	snc_options options;
	const char* token;
	int timeout_ms;
	snc_client* client;
} cli;

typedef int (*command_fn)(cli* c, int argc, char** argv);

typedef struct command_row
{
	const char* name;
	command_fn run;
	bool connects; // needs a handshaken connection
	const char* usage;
} command_row;

static volatile sig_atomic_t interrupted;

static void on_interrupt(int signum)
{
	(void)signum;
	interrupted = 1;
}

// ---- helpers ------------------------------------------------------------------------------------------

static bool parse_u64(const char* text, uint64_t* out)
{
	if (text == NULL || *text == '\0')
	{
		return false;
	}
	char* end = NULL;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || text[0] == '-')
	{
		return false;
	}
	*out = v;
	return true;
}

static bool parse_double(const char* text, double* out)
{
	if (text == NULL || *text == '\0')
	{
		return false;
	}
	char* end = NULL;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v))
	{
		return false;
	}
	*out = v;
	return true;
}

// Send and wait; print the server's reason and return 1 if the command failed.
static int request(cli* c, sinew_v1_ClientMessage* m, snc_message* reply)
{
	int err = snc_request(c->client, m, reply, c->timeout_ms);
	if (err != 0)
	{
		fprintf(stderr, "sinew: %s\n", snc_error_string(err));
		return 1;
	}
	if (snc_reply_code(reply) != 0)
	{
		fprintf(stderr, "sinew: error %d: %s\n", (int)snc_reply_code(reply), snc_reply_text(reply));
		snc_message_free(reply);
		return 1;
	}
	return 0;
}

static int join(cli* c, uint64_t world, sinew_v1_Role role)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_join_world_tag;
	m.command.join_world.world_id = world;
	m.command.join_world.role = role;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	snc_message_free(&reply);
	return 0;
}

static const char* mode_name(sinew_v1_TimeMode mode)
{
	switch (mode)
	{
		case sinew_v1_TimeMode_TIME_PAUSED:
			return "paused";
		case sinew_v1_TimeMode_TIME_REALTIME:
			return "realtime";
		case sinew_v1_TimeMode_TIME_FAST:
			return "fast";
		case sinew_v1_TimeMode_TIME_LOCKSTEP:
			return "lockstep";
		default:
			return "?";
	}
}

// ---- commands -----------------------------------------------------------------------------------------

static int cmd_worlds(cli* c, int argc, char** argv)
{
	(void)argv;
	if (argc != 0)
	{
		return 2;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	printf("%-22s %-16s %-9s %14s %12s %7s %7s %s\n", "world", "name", "mode", "time_s", "steps", "bodies", "joints",
		   "state");
	for (int i = 0; i < reply.world_count; ++i)
	{
		const sinew_v1_WorldInfo* w = reply.worlds + i;
		printf("%-22llu %-16s %-9s %14.6f %12llu %7u %7u %s\n", (unsigned long long)w->world_id,
			   w->name[0] != '\0' ? w->name : "-", mode_name(w->mode), w->time, (unsigned long long)w->step_count,
			   (unsigned)w->body_count, (unsigned)w->joint_count, w->diverged ? "diverged" : "ok");
	}
	snc_message_free(&reply);
	return 0;
}

static int cmd_create_world(cli* c, int argc, char** argv)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_world_tag;
	sinew_v1_CreateWorld* cw = &m.command.create_world;
	cw->keep_after_disconnect = true; // a world made from the command line outlives the command
	cw->has_settings = true;
	cw->has_time = true;
	for (int i = 0; i < argc; ++i)
	{
		const char* a = argv[i];
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		double d = 0;
		uint64_t u = 0;
		if (strcmp(a, "--name") == 0 && v != NULL)
		{
			snprintf(cw->name, sizeof(cw->name), "%s", v);
		}
		else if (strcmp(a, "--dt") == 0 && parse_double(v, &d))
		{
			cw->settings.has_time_step = true;
			cw->settings.time_step = d;
		}
		else if (strcmp(a, "--solver") == 0 && v != NULL)
		{
			cw->settings.solver = strcmp(v, "pgs") == 0 ? sinew_v1_Solver_SOLVER_PGS
				: strcmp(v, "tgs") == 0                 ? sinew_v1_Solver_SOLVER_TGS
				: strcmp(v, "xpbd") == 0                ? sinew_v1_Solver_SOLVER_XPBD
														: (sinew_v1_Solver)99;
		}
		else if (strcmp(a, "--iterations") == 0 && parse_u64(v, &u))
		{
			cw->settings.has_position_iterations = true;
			cw->settings.position_iterations = (int32_t)u;
		}
		else if (strcmp(a, "--substeps") == 0 && parse_u64(v, &u))
		{
			cw->settings.has_substeps = true;
			cw->settings.substeps = (int32_t)u;
		}
		else if (strcmp(a, "--gravity") == 0 && v != NULL)
		{
			double g[3];
			if (sscanf(v, "%lf,%lf,%lf", g, g + 1, g + 2) != 3)
			{
				return 2;
			}
			cw->settings.has_gravity = true;
			cw->settings.gravity.x = g[0];
			cw->settings.gravity.y = g[1];
			cw->settings.gravity.z = g[2];
		}
		else if (strcmp(a, "--mode") == 0 && v != NULL)
		{
			cw->time.mode = strcmp(v, "realtime") == 0 ? sinew_v1_TimeMode_TIME_REALTIME
				: strcmp(v, "fast") == 0               ? sinew_v1_TimeMode_TIME_FAST
				: strcmp(v, "lockstep") == 0           ? sinew_v1_TimeMode_TIME_LOCKSTEP
													   : sinew_v1_TimeMode_TIME_PAUSED;
		}
		else if (strcmp(a, "--rate") == 0 && parse_double(v, &d))
		{
			cw->time.has_rate = true;
			cw->time.rate = d;
		}
		else
		{
			return 2;
		}
		i += 1;
	}
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	printf("%llu\n", (unsigned long long)reply.msg.message.reply.result.created.id);
	snc_message_free(&reply);
	return 0;
}

static int cmd_destroy_world(cli* c, int argc, char** argv)
{
	uint64_t world = 0;
	if (argc != 1 || !parse_u64(argv[0], &world))
	{
		return 2;
	}
	// A world kept after its creator left is ownerless: take it over first.
	join(c, world, sinew_v1_Role_ROLE_OWNER);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
	m.command.destroy_world.world_id = world;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	snc_message_free(&reply);
	return 0;
}

static int cmd_step(cli* c, int argc, char** argv)
{
	uint64_t world = 0, count = 0;
	if (argc != 2 || !parse_u64(argv[0], &world) || !parse_u64(argv[1], &count) || count == 0 || count > UINT32_MAX)
	{
		return 2;
	}
	if (join(c, world, sinew_v1_Role_ROLE_CONTROLLER) != 0)
	{
		return 1;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_step_tag;
	m.command.step.world_id = world;
	m.command.step.count = (uint32_t)count;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	const sinew_v1_StepResult* r = &reply.msg.message.reply.result.step;
	printf("step_count=%llu time_s=%.17g diverged=%d\n", (unsigned long long)r->step_count, r->time,
		   r->diverged ? 1 : 0);
	snc_message_free(&reply);
	return 0;
}

static void print_frame(const snc_message* f)
{
	const sinew_v1_StateFrame* s = f->msg.which_message == sinew_v1_ServerMessage_state_tag
		? &f->msg.message.state
		: &f->msg.message.reply.result.state;
	printf("tick=%llu time_s=%.6f%s", (unsigned long long)s->tick, s->time, s->diverged ? " diverged" : "");
	if (s->dropped > 0)
	{
		printf(" dropped=%u", (unsigned)s->dropped);
	}
	for (int j = 0; j < f->joint_count; ++j)
	{
		const sinew_v1_JointState* js = f->joints + j;
		printf(" j%llu=", (unsigned long long)js->id);
		for (pb_size_t k = 0; k < js->position_count; ++k)
		{
			printf("%s%.6f", k > 0 ? "," : "", js->position[k]);
		}
		if (js->position_count == 0)
		{
			printf("-");
		}
	}
	for (int a = 0; a < f->articulation_count; ++a)
	{
		const sinew_v1_ArticulationState* as = f->articulations + a;
		printf(" a%llu=", (unsigned long long)as->id);
		for (pb_size_t k = 0; k < as->position_count; ++k)
		{
			printf("%s%.6f", k > 0 ? "," : "", as->position[k]);
		}
	}
	printf("\n");
	fflush(stdout);
}

static int cmd_watch(cli* c, int argc, char** argv)
{
	uint64_t world = 0, count = 0;
	double rate = 10.0;
	if (argc < 1 || !parse_u64(argv[0], &world))
	{
		return 2;
	}
	for (int i = 1; i < argc; i += 2)
	{
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--rate") == 0 && parse_double(v, &rate))
		{
			continue;
		}
		if (strcmp(argv[i], "--count") == 0 && parse_u64(v, &count))
		{
			continue;
		}
		return 2;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_subscribe_tag;
	m.command.subscribe.world_id = world;
	m.command.subscribe.rate_hz = rate;
	m.command.subscribe.include = sinew_v1_Include_INCLUDE_JOINT_POSITIONS;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	snc_message_free(&reply);
	signal(SIGINT, on_interrupt);
	for (uint64_t seen = 0; (count == 0 || seen < count) && !interrupted;)
	{
		snc_message f;
		int err = snc_receive(c->client, &f, 200);
		if (err == -ETIMEDOUT)
		{
			continue;
		}
		if (err != 0)
		{
			fprintf(stderr, "sinew: %s\n", snc_error_string(err));
			return 1;
		}
		if (f.msg.which_message == sinew_v1_ServerMessage_state_tag)
		{
			print_frame(&f);
			seen += 1;
		}
		else if (f.msg.which_message == sinew_v1_ServerMessage_event_tag)
		{
			const sinew_v1_Event* e = &f.msg.message.event;
			if (e->which_event == sinew_v1_Event_diverged_tag)
			{
				printf("event=diverged world=%llu detail=\"%s\"\n", (unsigned long long)e->world_id,
					   e->event.diverged.detail);
			}
			else if (e->which_event == sinew_v1_Event_destroyed_tag || e->which_event == sinew_v1_Event_closing_tag)
			{
				printf("event=%s\n", e->which_event == sinew_v1_Event_destroyed_tag ? "destroyed" : "closing");
				snc_message_free(&f);
				return 0;
			}
		}
		snc_message_free(&f);
	}
	return 0;
}

static int cmd_state(cli* c, int argc, char** argv)
{
	uint64_t world = 0;
	if (argc != 1 || !parse_u64(argv[0], &world))
	{
		return 2;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_get_state_tag;
	m.command.get_state.world_id = world;
	m.command.get_state.include = sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	for (int i = 0; i < reply.body_count; ++i)
	{
		const sinew_v1_BodyState* b = reply.bodies + i;
		printf("body=%llu p=%.6f,%.6f,%.6f q=%.6f,%.6f,%.6f,%.6f\n", (unsigned long long)b->id, b->position.x,
			   b->position.y, b->position.z, b->rotation.x, b->rotation.y, b->rotation.z, b->rotation.w);
	}
	print_frame(&reply);
	snc_message_free(&reply);
	return 0;
}

static int compare_u64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : x > y;
}

// Round-trip latency of `step 1` against a running server: on a given world (joined as controller; it
// must be paused) or on a new empty one.
static int cmd_bench_server(cli* c, int argc, char** argv)
{
	uint64_t world = 0, count = 10000;
	for (int i = 0; i < argc; i += 2)
	{
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--world") == 0 && parse_u64(v, &world))
		{
			continue;
		}
		if (strcmp(argv[i], "--count") == 0 && parse_u64(v, &count) && count > 0 && count <= 10000000)
		{
			continue;
		}
		return 2;
	}
	snc_message reply;
	if (world == 0)
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_world_tag;
		snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "bench-empty");
		if (request(c, &m, &reply) != 0)
		{
			return 1;
		}
		world = reply.msg.message.reply.result.created.id;
		snc_message_free(&reply);
	}
	else if (join(c, world, sinew_v1_Role_ROLE_CONTROLLER) != 0)
	{
		return 1;
	}
	uint64_t* ns = malloc((size_t)count * sizeof(uint64_t));
	if (ns == NULL)
	{
		return 1;
	}
	uint64_t warmup = count / 10 < 1000 ? count / 10 : 1000;
	for (uint64_t i = 0; i < warmup + count; ++i)
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_step_tag;
		m.command.step.world_id = world;
		m.command.step.count = 1;
		uint64_t t0 = snc_now_ns();
		if (request(c, &m, &reply) != 0)
		{
			free(ns);
			return 1;
		}
		uint64_t t1 = snc_now_ns();
		snc_message_free(&reply);
		if (i >= warmup)
		{
			ns[i - warmup] = t1 - t0;
		}
	}
	qsort(ns, (size_t)count, sizeof(uint64_t), compare_u64);
	double p50 = (double)ns[count / 2] * 1e-3;
	double p99 = (double)ns[(size_t)((double)count * 0.99)] * 1e-3;
	double p999 = (double)ns[(size_t)((double)count * 0.999)] * 1e-3;
	printf("# step 1 round trip over %s, %llu requests: p50 %.1f us, p99 %.1f us, p99.9 %.1f us\n",
		   c->options.transport == SNC_WS ? "WebSocket" : "TCP", (unsigned long long)count, p50, p99, p999);
	printf("BENCH name=cli_step1_latency transport=%s requests=%llu p50_us=%.3f p99_us=%.3f p999_us=%.3f\n",
		   c->options.transport == SNC_WS ? "ws" : "tcp", (unsigned long long)count, p50, p99, p999);
	free(ns);
	return 0;
}

// sinew sim: offline, no connection. sinew_sim_main takes the command's own name first, as argv[-1] is.
static int cmd_sim(cli* c, int argc, char** argv)
{
	(void)c;
	return sinew_sim_main(argc + 1, argv - 1);
}

// The URDF importer's own limit (snm_limits.max_bytes): a larger file would be refused by the server.
#define CLI_MAX_URDF_BYTES (8u << 20)

static char* read_file(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		fprintf(stderr, "sinew: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	char* text = malloc(CLI_MAX_URDF_BYTES + 1);
	size_t n = text != NULL ? fread(text, 1, CLI_MAX_URDF_BYTES + 1, f) : 0;
	bool bad = text == NULL || ferror(f) != 0 || n > CLI_MAX_URDF_BYTES;
	fclose(f);
	if (bad)
	{
		fprintf(stderr, "sinew: cannot read %s (or it is larger than %u bytes)\n", path, CLI_MAX_URDF_BYTES);
		free(text);
		return NULL;
	}
	*size = n;
	return text;
}

static int cmd_load_urdf(cli* c, int argc, char** argv)
{
	uint64_t world = 0;
	if (argc < 2 || !parse_u64(argv[0], &world))
	{
		return 2;
	}
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.file_name = argv[1];
	sinew_v1_Drive all = sinew_v1_Drive_init_zero;
	sinew_v1_Transform pose = sinew_v1_Transform_init_zero;
	sinew_v1_JointValue initial[64];
	for (int i = 2; i < argc; ++i)
	{
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		double g[3];
		if (strcmp(argv[i], "--drive-all") == 0 && v != NULL && sscanf(v, "%lf,%lf", g, g + 1) == 2)
		{
			all.enabled = true;
			all.type = sinew_v1_DriveType_DRIVE_FORCE;
			all.stiffness = g[0];
			all.damping = g[1];
			r.drive_all = &all;
		}
		else if (strcmp(argv[i], "--base") == 0 && v != NULL)
		{
			r.base_mode = strcmp(v, "fixed") == 0 ? sinew_v1_BaseMode_BASE_FIXED
				: strcmp(v, "floating") == 0      ? sinew_v1_BaseMode_BASE_FLOATING
				: strcmp(v, "auto") == 0          ? sinew_v1_BaseMode_BASE_AUTO
												  : (sinew_v1_BaseMode)99;
		}
		else if (strcmp(argv[i], "--at") == 0 && v != NULL && sscanf(v, "%lf,%lf,%lf", g, g + 1, g + 2) == 3)
		{
			pose.has_position = true;
			pose.position.x = g[0];
			pose.position.y = g[1];
			pose.position.z = g[2];
			r.base_pose = &pose;
		}
		else if (strcmp(argv[i], "--initial") == 0 && v != NULL && r.initial_count < 64)
		{
			sinew_v1_JointValue* jv = initial + r.initial_count;
			*jv = (sinew_v1_JointValue)sinew_v1_JointValue_init_zero;
			const char* eq = strrchr(v, '=');
			if (eq == NULL || eq == v || (size_t)(eq - v) >= sizeof(jv->joint) || !parse_double(eq + 1, &jv->value))
			{
				return 2;
			}
			memcpy(jv->joint, v, (size_t)(eq - v));
			r.initial = initial;
			r.initial_count += 1;
		}
		else
		{
			return 2;
		}
		i += 1;
	}
	size_t size = 0;
	char* text = read_file(argv[1], &size);
	if (text == NULL)
	{
		return 1;
	}
	r.urdf = text;
	r.urdf_size = size;
	// An ownerless world (the demo, a world kept by the command line) is taken over first.
	join(c, world, sinew_v1_Role_ROLE_OWNER);
	snc_message reply;
	int err = snc_load_urdf(c->client, &r, &reply, c->timeout_ms);
	free(text);
	if (err != 0)
	{
		fprintf(stderr, "sinew: %s\n", snc_error_string(err));
		return 1;
	}
	if (snc_reply_code(&reply) != 0)
	{
		fprintf(stderr, "sinew: error %d: %s\n", (int)snc_reply_code(&reply), snc_reply_text(&reply));
		snc_message_free(&reply);
		return 1;
	}
	const sinew_v1_UrdfModel* u = &reply.msg.message.reply.result.urdf;
	printf("articulation=%llu robot=%s links=%u dofs=%u\n", (unsigned long long)u->articulation_id, u->robot_name,
		   u->link_count, u->dof_count);
	for (int j = 0; j < reply.urdf_joint_count; ++j)
	{
		const sinew_v1_UrdfJoint* jt = reply.urdf_joints + j;
		printf("joint %s type=%s link=%d dof=%d", jt->name, jt->type, (int)jt->link, (int)jt->dof);
		if (jt->mimic_id != 0)
		{
			printf(" mimic=%llu of=%s multiplier=%.17g offset=%.17g", (unsigned long long)jt->mimic_id, jt->mimic_of,
				   jt->multiplier, jt->offset);
		}
		printf("\n");
	}
	for (int l = 0; l < reply.urdf_link_count; ++l)
	{
		printf("link %s link=%d\n", reply.urdf_links[l].name, (int)reply.urdf_links[l].link);
	}
	for (int w = 0; w < reply.urdf_warning_count; ++w)
	{
		fprintf(stderr, "sinew: warning: %s\n", reply.urdf_warnings[w]);
	}
	snc_message_free(&reply);
	return 0;
}

static int cmd_help(cli* c, int argc, char** argv);

static const command_row commands[] = {
	{ "worlds", cmd_worlds, true, "worlds                      list the server's worlds" },
	{ "create-world", cmd_create_world, true,
	  "create-world [--name N] [--dt S] [--solver pgs|tgs|xpbd] [--iterations N] [--substeps N]\n"
	  "             [--gravity X,Y,Z] [--mode paused|realtime|fast|lockstep] [--rate R]\n"
	  "                            create a world (kept after this command exits); prints its id" },
	{ "destroy-world", cmd_destroy_world, true,
	  "destroy-world WORLD         destroy a world (taking it over if ownerless)" },
	{ "step", cmd_step, true, "step WORLD N                step a paused world N times (joins it as a controller)" },
	{ "watch", cmd_watch, true,
	  "watch WORLD [--rate HZ] [--count N]\n"
	  "                            print joint positions as they stream (default 10 Hz, until Ctrl-C)" },
	{ "state", cmd_state, true, "state WORLD                 print the world's state once" },
	{ "bench-server", cmd_bench_server, true,
	  "bench-server [--world W] [--count N]\n"
	  "                            step-1 round-trip latency (p50/p99/p99.9) on W or a new empty world" },
	{ "load-urdf", cmd_load_urdf, true,
	  "load-urdf WORLD FILE [--drive-all KP,KD] [--base auto|fixed|floating] [--at X,Y,Z] [--initial J=Q]...\n"
	  "                            load a URDF robot into a world; prints its articulation, joints and links" },
	{ "sim", cmd_sim, false,
	  "sim MODEL.urdf [options]    run a URDF offline on the embedded core, no server (sinew sim --help)" },
	{ "help", cmd_help, false, "help                        this text" },
};

static int cmd_help(cli* c, int argc, char** argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	printf("usage: sinew [--host H] [--port P] [--ws] [--token T] [--timeout MS] COMMAND [ARGS]\n"
		   "Talks to sinewd (default 127.0.0.1, TCP port 7420; --ws: WebSocket port 7421).\n"
		   "The token may also come from SINEW_TOKEN.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); ++i)
	{
		printf("  %s\n", commands[i].usage);
	}
	return 0;
}

int main(int argc, char** argv)
{
	signal(SIGPIPE, SIG_IGN);
	cli c;
	memset(&c, 0, sizeof(c));
	c.options = snc_default_options();
	c.timeout_ms = 10000;
	c.token = getenv("SINEW_TOKEN");
	int i = 1;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; ++i)
	{
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t u = 0;
		if (strcmp(argv[i], "--host") == 0 && v != NULL)
		{
			c.options.host = v;
			i += 1;
		}
		else if (strcmp(argv[i], "--port") == 0 && parse_u64(v, &u) && u <= 65535)
		{
			c.options.port = (int)u;
			i += 1;
		}
		else if (strcmp(argv[i], "--ws") == 0)
		{
			c.options.transport = SNC_WS;
		}
		else if (strcmp(argv[i], "--token") == 0 && v != NULL)
		{
			c.token = v;
			i += 1;
		}
		else if (strcmp(argv[i], "--timeout") == 0 && parse_u64(v, &u) && u > 0 && u < 86400000)
		{
			c.timeout_ms = (int)u;
			i += 1;
		}
		else if (strcmp(argv[i], "--help") == 0)
		{
			return cmd_help(&c, 0, NULL);
		}
		else
		{
			fprintf(stderr, "sinew: unknown option %s (see sinew help)\n", argv[i]);
			return 2;
		}
	}
	if (i >= argc)
	{
		cmd_help(&c, 0, NULL);
		return 2;
	}
	const command_row* row = NULL;
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); ++k)
	{
		if (strcmp(argv[i], commands[k].name) == 0)
		{
			row = commands + k;
		}
	}
	if (row == NULL)
	{
		fprintf(stderr, "sinew: unknown command %s (see sinew help)\n", argv[i]);
		return 2;
	}
	if (row->connects)
	{
		int err = snc_connect(&c.options, &c.client);
		if (err == 0)
		{
			sinew_v1_HandshakeReply hr;
			err = snc_handshake(c.client, "sinew-cli", c.token, sinew_v1_Role_ROLE_CONTROLLER, &hr);
			if (err == SNC_REFUSED)
			{
				fprintf(stderr, "sinew: the server refused: %s\n", hr.status.message);
				snc_close(c.client);
				return 1;
			}
		}
		if (err != 0)
		{
			fprintf(stderr, "sinew: cannot connect to %s:%d: %s\n", c.options.host,
					c.options.port != 0 ? c.options.port : (c.options.transport == SNC_WS ? 7421 : 7420),
					snc_error_string(err));
			snc_close(c.client);
			return 1;
		}
	}
	int status = row->run(&c, argc - i - 1, argv + i + 1);
	if (status == 2)
	{
		fprintf(stderr, "usage: sinew %s\n", row->usage);
	}
	snc_close(c.client);
	return status;
}
