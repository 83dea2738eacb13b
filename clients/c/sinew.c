// sinew: the command-line client of sinewd. Subcommands are rows of one table (name, handler, usage,
// help); add a row to add one. Worlds are named by name or id everywhere; joints by their URDF names
// (DescribeWorld). `sinew sim MODEL.urdf` runs a model offline on the embedded core (sim.c).
//
//   sinew [--host H] [--port P] [--ws] [--token T] [--timeout MS] COMMAND [ARGS]
//
// Where the server is comes from the same variables sinewd reads (SINEW_HOST, SINEW_TCP_PORT,
// SINEW_WS_PORT, SINEW_TOKEN); flags win. Exit status: 0 done, 1 the server or the connection failed,
// 2 a wrong argument (the message says which and why).
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 // realpath
#include "content.h"
#include "sim.h"
#include "sinew_client.h"

#include "sinew/model.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cli
{
	snc_options options;
	const char* token;
	int timeout_ms;
	snc_client* client;
	const char* command;     // the subcommand's name, for messages
	int max_assets_per_load; // from the handshake: hashes one FindAssets may ask about
} cli;

typedef int (*command_fn)(cli* c, int argc, char** argv);

typedef struct command_row
{
	const char* name;
	command_fn run;
	bool connects; // needs a handshaken connection
	const char* usage;
	const char* help; // more lines for `sinew COMMAND --help`
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

static bool parse_vec3(const char* text, double v[3])
{
	char extra;
	return text != NULL && sscanf(text, "%lf,%lf,%lf%c", v, v + 1, v + 2, &extra) == 3 && isfinite(v[0]) &&
		isfinite(v[1]) && isfinite(v[2]);
}

// A wrong argument: say what is wrong (the usage line follows, from main). Returns 2.
static int bad_argument(const cli* c, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static int bad_argument(const cli* c, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	fprintf(stderr, "sinew %s: ", c->command);
	vfprintf(stderr, format, args);
	fprintf(stderr, "\n");
	va_end(args);
	return 2;
}

// The value after option argv[i], or NULL with a message when it is missing.
static const char* option_value(const cli* c, int argc, char** argv, int i)
{
	if (i + 1 >= argc)
	{
		bad_argument(c, "%s needs a value", argv[i]);
		return NULL;
	}
	return argv[i + 1];
}

// Send and wait; print the server's reason and return 1 if the command failed.
static int request(cli* c, sinew_v1_ClientMessage* m, snc_message* reply)
{
	int err = snc_request(c->client, m, reply, c->timeout_ms);
	if (err != 0)
	{
		fprintf(stderr, "sinew %s: %s\n", c->command, snc_error_string(err));
		return 1;
	}
	if (snc_reply_code(reply) != 0)
	{
		fprintf(stderr, "sinew %s: the server refused: %s (%d): %s\n", c->command,
				sinew_v1_ErrorCode_name((sinew_v1_ErrorCode)snc_reply_code(reply)), (int)snc_reply_code(reply),
				snc_reply_text(reply));
		snc_message_free(reply);
		return 1;
	}
	return 0;
}

// Join a world with a role; returns the server's code (0 when joined). Quiet: the command that follows
// says what is wrong if the role was not granted.
static int32_t try_join(cli* c, uint64_t world, sinew_v1_Role role)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_join_world_tag;
	m.command.join_world.world_id = world;
	m.command.join_world.role = role;
	snc_message reply;
	if (snc_request(c->client, &m, &reply, c->timeout_ms) != 0)
	{
		return -1;
	}
	int32_t code = snc_reply_code(&reply);
	snc_message_free(&reply);
	return code;
}

// The most say a session can have in a world: its owner when it has none (the demo, a kept world), else
// a controller.
static void take_control(cli* c, const sinew_v1_WorldInfo* w)
{
	if (w->owner_session == 0)
	{
		try_join(c, w->world_id, sinew_v1_Role_ROLE_OWNER);
	}
	else
	{
		try_join(c, w->world_id, sinew_v1_Role_ROLE_CONTROLLER);
	}
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

// Every solver the server has (proto Solver), by the names the tool takes.
static const struct
{
	const char* name;
	sinew_v1_Solver solver;
} solvers[] = {
	{ "pgs", sinew_v1_Solver_SOLVER_PGS },
	{ "tgs", sinew_v1_Solver_SOLVER_TGS },
	{ "xpbd", sinew_v1_Solver_SOLVER_XPBD },
	{ "direct", sinew_v1_Solver_SOLVER_DIRECT },
};

static const struct
{
	const char* name;
	sinew_v1_TimeMode mode;
} modes[] = {
	{ "paused", sinew_v1_TimeMode_TIME_PAUSED },
	{ "realtime", sinew_v1_TimeMode_TIME_REALTIME },
	{ "fast", sinew_v1_TimeMode_TIME_FAST },
	{ "lockstep", sinew_v1_TimeMode_TIME_LOCKSTEP },
};

// ---- worlds by name or id -----------------------------------------------------------------------------

// The world named `arg`, or numbered `arg`: its WorldInfo into *out. Says what is wrong and returns 1
// when no world or more than one answers to it.
static int find_world(cli* c, const char* arg, sinew_v1_WorldInfo* out)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	uint64_t id = 0;
	bool numeric = parse_u64(arg, &id);
	int matches = 0;
	for (int i = 0; i < reply.world_count; ++i)
	{
		const sinew_v1_WorldInfo* w = reply.worlds + i;
		if (strcmp(w->name, arg) == 0 || (numeric && w->world_id == id))
		{
			*out = *w;
			matches += 1;
		}
	}
	int status = 0;
	if (matches == 0)
	{
		fprintf(stderr, "sinew %s: no world is named or numbered \"%s\" on %s:%d (worlds:", c->command, arg,
				c->options.host, c->options.port);
		for (int i = 0; i < reply.world_count; ++i)
		{
			fprintf(stderr, "%s %s (%llu)", i > 0 ? "," : "",
					reply.worlds[i].name[0] != '\0' ? reply.worlds[i].name : "-",
					(unsigned long long)reply.worlds[i].world_id);
		}
		fprintf(stderr, "%s)\n", reply.world_count == 0 ? " none" : "");
		status = 1;
	}
	else if (matches > 1)
	{
		fprintf(stderr, "sinew %s: \"%s\" is ambiguous; give one of these ids:\n", c->command, arg);
		for (int i = 0; i < reply.world_count; ++i)
		{
			const sinew_v1_WorldInfo* w = reply.worlds + i;
			if (strcmp(w->name, arg) == 0 || (numeric && w->world_id == id))
			{
				fprintf(stderr, "  %llu  %s\n", (unsigned long long)w->world_id, w->name[0] != '\0' ? w->name : "-");
			}
		}
		status = 1;
	}
	snc_message_free(&reply);
	return status;
}

// ---- joints by name (DescribeWorld) -------------------------------------------------------------------

enum
{
	NAME_CAP = 160
};

// One articulation dof as a person names it: its URDF joint (or "link<i>" without a URDF), its unit,
// whether a drive moves it, and its limits.
typedef struct dof_label
{
	uint64_t articulation;
	int dof;
	char name[NAME_CAP];
	const char* unit;
	bool driven;
	bool limited;
	double lower;
	double upper;
} dof_label;

typedef struct world_labels
{
	dof_label* dofs;
	int count;
	int articulations;
} world_labels;

static void labels_free(world_labels* l)
{
	free(l->dofs);
	memset(l, 0, sizeof(*l));
}

static const dof_label* labels_find(const world_labels* l, uint64_t articulation, int dof)
{
	for (int i = 0; i < l->count; ++i)
	{
		if (l->dofs[i].articulation == articulation && l->dofs[i].dof == dof)
		{
			return l->dofs + i;
		}
	}
	return NULL;
}

// Ask the server what the world's articulations are and name their dofs. Returns 0, or 1 (said why).
static int describe(cli* c, uint64_t world, world_labels* out)
{
	memset(out, 0, sizeof(*out));
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_describe_world_tag;
	m.command.describe_world.world_id = world;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	int total = 0;
	for (int a = 0; a < reply.articulation_info_count; ++a)
	{
		total += (int)reply.articulation_infos[a].info.dof_count;
	}
	out->dofs = calloc(total > 0 ? (size_t)total : 1, sizeof(dof_label));
	if (out->dofs == NULL)
	{
		snc_message_free(&reply);
		return 1;
	}
	out->articulations = reply.articulation_info_count;
	for (int a = 0; a < reply.articulation_info_count; ++a)
	{
		const snc_articulation_info* ai = reply.articulation_infos + a;
		for (int li = 0; li < ai->link_count; ++li)
		{
			const sinew_v1_LinkInfo* link = reply.link_infos + ai->first_link + li;
			for (uint32_t k = 0; k < link->dof_count && out->count < total; ++k)
			{
				dof_label* d = out->dofs + out->count++;
				d->articulation = ai->info.id;
				d->dof = (int)(link->first_dof + k);
				d->unit = link->joint_type == sinew_v1_LinkJointType_LINK_PRISMATIC ? "m" : "rad";
				d->driven = k < link->drives_count && link->drives[k].enabled;
				d->limited = k < link->limits_count && link->limits[k].enabled;
				d->lower = d->limited ? link->limits[k].lower : -INFINITY;
				d->upper = d->limited ? link->limits[k].upper : INFINITY;
				const char* joint = NULL;
				for (int j = 0; j < ai->urdf_joint_count; ++j)
				{
					const sinew_v1_UrdfJoint* uj = reply.urdf_joints + ai->first_urdf_joint + j;
					if (uj->dof == (int32_t)link->first_dof)
					{
						joint = uj->name;
					}
				}
				if (joint != NULL)
				{
					snprintf(d->name, sizeof(d->name), "%s%s%s", joint, link->dof_count > 1 ? "." : "",
							 link->dof_count > 1 ? (const char*[]){ "x", "y", "z" }[k] : "");
				}
				else
				{
					snprintf(d->name, sizeof(d->name), "link%d%s%s", li, link->dof_count > 1 ? "." : "",
							 link->dof_count > 1 ? (const char*[]){ "x", "y", "z" }[k] : "");
				}
			}
		}
	}
	snc_message_free(&reply);
	return 0;
}

// "joint2" for a world of one articulation, "a<short id>/joint2" when there are several.
static void dof_title(const world_labels* l, const dof_label* d, char* out, size_t cap)
{
	if (l->articulations > 1)
	{
		snprintf(out, cap, "a%llu/%s", (unsigned long long)(d->articulation >> 32), d->name);
	}
	else
	{
		snprintf(out, cap, "%s", d->name);
	}
}

// ---- commands -----------------------------------------------------------------------------------------

static int cmd_worlds(cli* c, int argc, char** argv)
{
	if (argc != 0)
	{
		return bad_argument(c, "takes no arguments, got \"%s\"", argv[0]);
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	printf("%-22s %-16s %-9s %12s %10s %6s %6s %7s %7s %s\n", "world", "name", "mode", "time_s", "steps", "artic",
		   "links", "bodies", "joints", "state");
	for (int i = 0; i < reply.world_count; ++i)
	{
		const sinew_v1_WorldInfo* w = reply.worlds + i;
		printf("%-22llu %-16s %-9s %12.3f %10llu %6u %6u %7u %7u %s%s%s\n", (unsigned long long)w->world_id,
			   w->name[0] != '\0' ? w->name : "-", mode_name(w->mode), w->time, (unsigned long long)w->step_count,
			   (unsigned)w->articulation_count, (unsigned)w->link_count, (unsigned)w->body_count,
			   (unsigned)w->joint_count, w->diverged ? "diverged" : "ok", w->owner_session == 0 ? ",ownerless" : "",
			   w->destroy_protected ? ",protected" : "");
	}
	if (reply.world_count == 0)
	{
		printf("(no worlds: `sinew create-world --name NAME` makes one)\n");
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
	for (int i = 0; i < argc; i += 2)
	{
		const char* a = argv[i];
		if (strcmp(a, "--no-keep") == 0)
		{
			cw->keep_after_disconnect = false;
			i -= 1;
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
		{
			return bad_argument(c, "unexpected argument \"%s\" (options start with --)", a);
		}
		const char* v = option_value(c, argc, argv, i);
		if (v == NULL)
		{
			return 2;
		}
		double d = 0;
		uint64_t u = 0;
		if (strcmp(a, "--name") == 0)
		{
			if (strlen(v) >= sizeof(cw->name))
			{
				return bad_argument(c, "--name: at most %zu bytes", sizeof(cw->name) - 1);
			}
			snprintf(cw->name, sizeof(cw->name), "%s", v);
		}
		else if (strcmp(a, "--dt") == 0)
		{
			if (!parse_double(v, &d) || !(d > 0.0 && d <= 1.0))
			{
				return bad_argument(c, "--dt: expected a time step in (0, 1] s, got \"%s\"", v);
			}
			cw->settings.has_time_step = true;
			cw->settings.time_step = d;
		}
		else if (strcmp(a, "--solver") == 0)
		{
			bool found = false;
			for (size_t k = 0; k < sizeof(solvers) / sizeof(solvers[0]); ++k)
			{
				if (strcmp(v, solvers[k].name) == 0)
				{
					cw->settings.solver = solvers[k].solver;
					found = true;
				}
			}
			if (!found)
			{
				return bad_argument(c, "--solver: unknown solver \"%s\" (pgs, tgs, xpbd or direct)", v);
			}
		}
		else if (strcmp(a, "--iterations") == 0 || strcmp(a, "--velocity-iterations") == 0 ||
				 strcmp(a, "--substeps") == 0)
		{
			bool velocity = strcmp(a, "--velocity-iterations") == 0;
			if (!parse_u64(v, &u) || u > 1000 || (u == 0 && !velocity))
			{
				return bad_argument(c, "%s: expected an integer in [%d, 1000], got \"%s\"", a, velocity ? 0 : 1, v);
			}
			if (strcmp(a, "--iterations") == 0)
			{
				cw->settings.has_position_iterations = true;
				cw->settings.position_iterations = (int32_t)u;
			}
			else if (velocity)
			{
				cw->settings.has_velocity_iterations = true;
				cw->settings.velocity_iterations = (int32_t)u;
			}
			else
			{
				cw->settings.has_substeps = true;
				cw->settings.substeps = (int32_t)u;
			}
		}
		else if (strcmp(a, "--gravity") == 0)
		{
			double g[3];
			if (!parse_vec3(v, g))
			{
				return bad_argument(c, "--gravity: expected X,Y,Z in m/s^2 (for example 0,0,-9.81), got \"%s\"", v);
			}
			cw->settings.has_gravity = true;
			cw->settings.gravity.x = g[0];
			cw->settings.gravity.y = g[1];
			cw->settings.gravity.z = g[2];
		}
		else if (strcmp(a, "--mode") == 0)
		{
			bool found = false;
			for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); ++k)
			{
				if (strcmp(v, modes[k].name) == 0)
				{
					cw->time.mode = modes[k].mode;
					found = true;
				}
			}
			if (!found)
			{
				return bad_argument(c, "--mode: unknown time mode \"%s\" (paused, realtime, fast or lockstep)", v);
			}
		}
		else if (strcmp(a, "--rate") == 0)
		{
			if (!parse_double(v, &d) || !(d > 0.0))
			{
				return bad_argument(c, "--rate: expected a positive real-time factor, got \"%s\"", v);
			}
			cw->time.has_rate = true;
			cw->time.rate = d;
		}
		else
		{
			return bad_argument(c, "unknown option %s", a);
		}
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

// y or yes on the terminal.
static bool confirm(const char* question)
{
	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	char line[16];
	if (fgets(line, sizeof(line), stdin) == NULL)
	{
		return false;
	}
	return strcmp(line, "y\n") == 0 || strcmp(line, "yes\n") == 0 || strcmp(line, "Y\n") == 0;
}

static int cmd_destroy_world(cli* c, int argc, char** argv)
{
	const char* name = NULL;
	bool yes = false;
	for (int i = 0; i < argc; ++i)
	{
		if (strcmp(argv[i], "--yes") == 0 || strcmp(argv[i], "-y") == 0)
		{
			yes = true;
		}
		else if (strncmp(argv[i], "-", 1) == 0)
		{
			return bad_argument(c, "unknown option %s", argv[i]);
		}
		else if (name != NULL)
		{
			return bad_argument(c, "one world at a time (got \"%s\" and \"%s\")", name, argv[i]);
		}
		else
		{
			name = argv[i];
		}
	}
	if (name == NULL)
	{
		return bad_argument(c, "which world? (a name or id, see sinew worlds)");
	}
	sinew_v1_WorldInfo w;
	if (find_world(c, name, &w) != 0)
	{
		return 1;
	}
	if (!yes)
	{
		if (!isatty(STDIN_FILENO))
		{
			fprintf(stderr, "sinew destroy-world: not destroying \"%s\" without a confirmation: add --yes\n", name);
			return 2;
		}
		char question[256];
		snprintf(question, sizeof(question), "Destroy world \"%s\" (%llu: %u articulations, %u bodies, t = %.3f s)?",
				 w.name[0] != '\0' ? w.name : "-", (unsigned long long)w.world_id, (unsigned)w.articulation_count,
				 (unsigned)w.body_count, w.time);
		if (!confirm(question))
		{
			fprintf(stderr, "sinew destroy-world: nothing destroyed\n");
			return 1;
		}
	}
	// A world kept after its creator left is ownerless: take it over first.
	take_control(c, &w);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
	m.command.destroy_world.world_id = w.world_id;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	printf("destroyed %s (%llu)\n", w.name[0] != '\0' ? w.name : "-", (unsigned long long)w.world_id);
	snc_message_free(&reply);
	return 0;
}

static int cmd_step(cli* c, int argc, char** argv)
{
	uint64_t count = 0;
	if (argc != 2)
	{
		return bad_argument(c, "expected WORLD N (a world's name or id, and a number of steps), got %d arguments",
							argc);
	}
	if (!parse_u64(argv[1], &count) || count == 0 || count > UINT32_MAX)
	{
		return bad_argument(c, "N: expected a number of steps of at least 1, got \"%s\"", argv[1]);
	}
	sinew_v1_WorldInfo w;
	if (find_world(c, argv[0], &w) != 0)
	{
		return 1;
	}
	if (try_join(c, w.world_id, sinew_v1_Role_ROLE_CONTROLLER) != 0 && w.owner_session == 0)
	{
		try_join(c, w.world_id, sinew_v1_Role_ROLE_OWNER);
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_step_tag;
	m.command.step.world_id = w.world_id;
	m.command.step.count = (uint32_t)count;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		if (w.mode != sinew_v1_TimeMode_TIME_PAUSED)
		{
			fprintf(stderr, "(the world runs %s: `sinew pause %s` first)\n", mode_name(w.mode), argv[0]);
		}
		return 1;
	}
	const sinew_v1_StepResult* r = &reply.msg.message.reply.result.step;
	printf("step_count=%llu time_s=%.17g diverged=%d\n", (unsigned long long)r->step_count, r->time,
		   r->diverged ? 1 : 0);
	snc_message_free(&reply);
	return 0;
}

// play, pause: the world's time mode (its owner's to set: an ownerless world is taken over).
static int set_mode(cli* c, int argc, char** argv, sinew_v1_TimeMode mode)
{
	double rate = 1.0;
	const char* name = NULL;
	for (int i = 0; i < argc; ++i)
	{
		if (mode == sinew_v1_TimeMode_TIME_REALTIME && strcmp(argv[i], "--rate") == 0)
		{
			const char* v = option_value(c, argc, argv, i++);
			if (v == NULL)
			{
				return 2;
			}
			if (!parse_double(v, &rate) || !(rate > 0.0))
			{
				return bad_argument(c, "--rate: expected a positive real-time factor, got \"%s\"", v);
			}
		}
		else if (argv[i][0] == '-')
		{
			return bad_argument(c, "unknown option %s", argv[i]);
		}
		else if (name != NULL)
		{
			return bad_argument(c, "one world at a time (got \"%s\" and \"%s\")", name, argv[i]);
		}
		else
		{
			name = argv[i];
		}
	}
	if (name == NULL)
	{
		return bad_argument(c, "which world? (a name or id, see sinew worlds)");
	}
	sinew_v1_WorldInfo w;
	if (find_world(c, name, &w) != 0)
	{
		return 1;
	}
	take_control(c, &w);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_set_time_mode_tag;
	m.command.set_time_mode.world_id = w.world_id;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = mode;
	m.command.set_time_mode.time.has_rate = mode == sinew_v1_TimeMode_TIME_REALTIME;
	m.command.set_time_mode.time.rate = rate;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	const sinew_v1_StepResult* r = &reply.msg.message.reply.result.step;
	printf("%s %s at step_count=%llu time_s=%.6f\n", w.name[0] != '\0' ? w.name : name, mode_name(mode),
		   (unsigned long long)r->step_count, r->time);
	snc_message_free(&reply);
	return 0;
}

static int cmd_play(cli* c, int argc, char** argv)
{
	return set_mode(c, argc, argv, sinew_v1_TimeMode_TIME_REALTIME);
}

static int cmd_pause(cli* c, int argc, char** argv)
{
	return set_mode(c, argc, argv, sinew_v1_TimeMode_TIME_PAUSED);
}

static int cmd_reset(cli* c, int argc, char** argv)
{
	if (argc != 1 || argv[0][0] == '-')
	{
		return bad_argument(c, "expected one WORLD (a name or id), got %d arguments", argc);
	}
	sinew_v1_WorldInfo w;
	if (find_world(c, argv[0], &w) != 0)
	{
		return 1;
	}
	take_control(c, &w);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_reset_tag;
	m.command.reset.world_id = w.world_id;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	snc_message_free(&reply);
	printf("%s reset\n", w.name[0] != '\0' ? w.name : argv[0]);
	return 0;
}

// sinew target WORLD JOINT=VALUE...: drive targets by joint name, one articulation per command.
static int cmd_target(cli* c, int argc, char** argv)
{
	if (argc < 2)
	{
		return bad_argument(c, "expected WORLD JOINT=VALUE... (targets in rad or m), got %d arguments", argc);
	}
	sinew_v1_WorldInfo w;
	if (find_world(c, argv[0], &w) != 0)
	{
		return 1;
	}
	world_labels labels;
	if (describe(c, w.world_id, &labels) != 0)
	{
		return 1;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_set_drive_targets_tag;
	m.command.set_drive_targets.world_id = w.world_id;
	sinew_v1_ArticulationTargets* t = &m.command.set_drive_targets.articulation;
	m.command.set_drive_targets.has_articulation = true;
	int status = 0;
	for (int i = 1; i < argc && status == 0; ++i)
	{
		const char* eq = strrchr(argv[i], '=');
		double value = 0;
		if (eq == NULL || eq == argv[i] || !parse_double(eq + 1, &value))
		{
			status = bad_argument(c, "expected JOINT=VALUE (for example joint2=0.5), got \"%s\"", argv[i]);
			break;
		}
		size_t n = (size_t)(eq - argv[i]);
		const dof_label* found = NULL;
		for (int k = 0; k < labels.count; ++k)
		{
			char title[NAME_CAP + 32];
			dof_title(&labels, labels.dofs + k, title, sizeof(title));
			if ((strlen(title) == n && strncmp(title, argv[i], n) == 0) ||
				(strlen(labels.dofs[k].name) == n && strncmp(labels.dofs[k].name, argv[i], n) == 0 &&
				 labels.articulations == 1))
			{
				found = labels.dofs + k;
			}
		}
		if (found == NULL)
		{
			fprintf(stderr, "sinew target: world %s has no joint \"%.*s\" (joints:", argv[0], (int)n, argv[i]);
			for (int k = 0; k < labels.count; ++k)
			{
				char title[NAME_CAP + 32];
				dof_title(&labels, labels.dofs + k, title, sizeof(title));
				fprintf(stderr, "%s %s", k > 0 ? "," : "", title);
			}
			fprintf(stderr, "%s)\n", labels.count == 0 ? " none" : "");
			status = 2;
		}
		else if (!found->driven)
		{
			status = bad_argument(c,
								  "%s has no drive (a mimic follower, or a joint loaded without drives): "
								  "no target to set",
								  found->name);
		}
		else if (found->limited && (value < found->lower || value > found->upper))
		{
			status = bad_argument(c, "%s=%g is outside its limits [%g, %g] %s", found->name, value, found->lower,
								  found->upper, found->unit);
		}
		else if (t->dofs_count > 0 && t->articulation_id != found->articulation)
		{
			status = bad_argument(c, "targets of one articulation per command (%s is in another)", found->name);
		}
		else if (t->dofs_count >= sizeof(t->dofs) / sizeof(t->dofs[0]))
		{
			status = bad_argument(c, "at most %zu targets per command", sizeof(t->dofs) / sizeof(t->dofs[0]));
		}
		else
		{
			t->articulation_id = found->articulation;
			t->dofs[t->dofs_count++] = (uint32_t)found->dof;
			t->positions[t->positions_count++] = value;
		}
	}
	labels_free(&labels);
	if (status != 0)
	{
		return status;
	}
	take_control(c, &w);
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		return 1;
	}
	snc_message_free(&reply);
	printf("targets set in %s%s\n", w.name[0] != '\0' ? w.name : argv[0],
		   w.destroy_protected ? " (the demo's own motion stands by until `sinew reset demo`)" : "");
	return 0;
}

static const sinew_v1_StateFrame* frame_of(const snc_message* f)
{
	return f->msg.which_message == sinew_v1_ServerMessage_state_tag ? &f->msg.message.state
																	: &f->msg.message.reply.result.state;
}

// One line: tick, time, then every joint by name with its unit.
static void print_frame_line(const snc_message* f, const world_labels* labels)
{
	const sinew_v1_StateFrame* s = frame_of(f);
	printf("tick=%llu time_s=%.6f%s", (unsigned long long)s->tick, s->time, s->diverged ? " diverged" : "");
	if (s->dropped > 0)
	{
		printf(" dropped=%u", (unsigned)s->dropped);
	}
	for (int a = 0; a < f->articulation_count; ++a)
	{
		const sinew_v1_ArticulationState* as = f->articulations + a;
		for (pb_size_t k = 0; k < as->position_count; ++k)
		{
			const dof_label* d = labels_find(labels, as->id, (int)k);
			char title[NAME_CAP + 32];
			if (d != NULL)
			{
				dof_title(labels, d, title, sizeof(title));
			}
			else
			{
				snprintf(title, sizeof(title), "a%llu/dof%u", (unsigned long long)(as->id >> 32), (unsigned)k);
			}
			printf(" %s=%.6f%s", title, as->position[k], d != NULL ? d->unit : "");
		}
	}
	// Maximal joints: the coordinates of their moving axes (m or rad by axis; no names on the wire).
	for (int j = 0; j < f->joint_count; ++j)
	{
		const sinew_v1_JointState* js = f->joints + j;
		printf(" j%llu=", (unsigned long long)(js->id >> 32));
		for (pb_size_t k = 0; k < js->position_count; ++k)
		{
			printf("%s%.6f", k > 0 ? "," : "", js->position[k]);
		}
		if (js->position_count == 0)
		{
			printf("-");
		}
	}
	printf("\n");
	fflush(stdout);
}

static int cmd_watch(cli* c, int argc, char** argv)
{
	uint64_t count = 0;
	double rate = 10.0;
	if (argc < 1 || argv[0][0] == '-')
	{
		return bad_argument(c, "which world? (a name or id, see sinew worlds)");
	}
	for (int i = 1; i < argc; i += 2)
	{
		const char* v = option_value(c, argc, argv, i);
		if (v == NULL)
		{
			return 2;
		}
		if (strcmp(argv[i], "--rate") == 0)
		{
			if (!parse_double(v, &rate) || !(rate > 0.0))
			{
				return bad_argument(c, "--rate: expected frames per second above 0, got \"%s\"", v);
			}
		}
		else if (strcmp(argv[i], "--count") == 0)
		{
			if (!parse_u64(v, &count) || count == 0)
			{
				return bad_argument(c, "--count: expected a number of frames of at least 1, got \"%s\"", v);
			}
		}
		else
		{
			return bad_argument(c, "unknown option %s", argv[i]);
		}
	}
	sinew_v1_WorldInfo w;
	world_labels labels;
	if (find_world(c, argv[0], &w) != 0 || describe(c, w.world_id, &labels) != 0)
	{
		return 1;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_subscribe_tag;
	m.command.subscribe.world_id = w.world_id;
	m.command.subscribe.rate_hz = rate;
	m.command.subscribe.include = sinew_v1_Include_INCLUDE_JOINT_POSITIONS;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		labels_free(&labels);
		return 1;
	}
	snc_message_free(&reply);
	signal(SIGINT, on_interrupt);
	int status = 0;
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
			fprintf(stderr, "sinew watch: %s\n", snc_error_string(err));
			status = 1;
			break;
		}
		if (f.msg.which_message == sinew_v1_ServerMessage_state_tag)
		{
			print_frame_line(&f, &labels);
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
				break;
			}
		}
		snc_message_free(&f);
	}
	labels_free(&labels);
	return status;
}

static int cmd_state(cli* c, int argc, char** argv)
{
	if (argc != 1 || argv[0][0] == '-')
	{
		return bad_argument(c, "expected one WORLD (a name or id), got %d arguments", argc);
	}
	sinew_v1_WorldInfo w;
	world_labels labels;
	if (find_world(c, argv[0], &w) != 0 || describe(c, w.world_id, &labels) != 0)
	{
		return 1;
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_get_state_tag;
	m.command.get_state.world_id = w.world_id;
	m.command.get_state.include = sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS |
		sinew_v1_Include_INCLUDE_VELOCITIES | sinew_v1_Include_INCLUDE_DRIVE_TARGETS;
	snc_message reply;
	if (request(c, &m, &reply) != 0)
	{
		labels_free(&labels);
		return 1;
	}
	const sinew_v1_StateFrame* s = frame_of(&reply);
	printf("world %s (%llu) %s tick=%llu time_s=%.6f%s\n", w.name[0] != '\0' ? w.name : "-",
		   (unsigned long long)w.world_id, mode_name(w.mode), (unsigned long long)s->tick, s->time,
		   s->diverged ? " diverged" : "");
	for (int a = 0; a < reply.articulation_count; ++a)
	{
		const sinew_v1_ArticulationState* as = reply.articulations + a;
		printf("articulation %llu: %u dofs, %u links\n", (unsigned long long)as->id, (unsigned)as->position_count,
			   (unsigned)as->link_poses_count);
		printf("  %-24s %14s %14s %14s\n", "joint", "position", "velocity", "target");
		for (pb_size_t k = 0; k < as->position_count; ++k)
		{
			const dof_label* d = labels_find(&labels, as->id, (int)k);
			const char* unit = d != NULL ? d->unit : "";
			char name[NAME_CAP + 8];
			snprintf(name, sizeof(name), "%s", d != NULL ? d->name : "?");
			char target[40] = "-";
			if (d != NULL && d->driven && k < as->target_position_count)
			{
				snprintf(target, sizeof(target), "%.6f %s", as->target_position[k], unit);
			}
			printf("  %-24s %10.6f %-3s %10.6f %-5s %14s\n", name, as->position[k], unit,
				   k < as->velocity_count ? as->velocity[k] : 0.0, strcmp(unit, "m") == 0 ? "m/s" : "rad/s", target);
		}
	}
	for (int i = 0; i < reply.body_count; ++i)
	{
		const sinew_v1_BodyState* b = reply.bodies + i;
		printf("body %llu p=%.6f,%.6f,%.6f m q=%.6f,%.6f,%.6f,%.6f\n", (unsigned long long)b->id, b->position.x,
			   b->position.y, b->position.z, b->rotation.x, b->rotation.y, b->rotation.z, b->rotation.w);
	}
	for (int j = 0; j < reply.joint_count; ++j)
	{
		const sinew_v1_JointState* js = reply.joints + j;
		printf("joint %llu position=", (unsigned long long)js->id);
		for (pb_size_t k = 0; k < js->position_count; ++k)
		{
			printf("%s%.6f", k > 0 ? "," : "", js->position[k]);
		}
		printf("%s (m or rad by axis)%s\n", js->position_count == 0 ? "-" : "", js->broken ? " broken" : "");
	}
	snc_message_free(&reply);
	labels_free(&labels);
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
	uint64_t count = 10000;
	const char* world_name = NULL;
	for (int i = 0; i < argc; i += 2)
	{
		const char* v = option_value(c, argc, argv, i);
		if (v == NULL)
		{
			return 2;
		}
		if (strcmp(argv[i], "--world") == 0)
		{
			world_name = v;
		}
		else if (strcmp(argv[i], "--count") == 0)
		{
			if (!parse_u64(v, &count) || count == 0 || count > 10000000)
			{
				return bad_argument(c, "--count: expected a number of requests in [1, 10000000], got \"%s\"", v);
			}
		}
		else
		{
			return bad_argument(c, "unknown option %s", argv[i]);
		}
	}
	snc_message reply;
	uint64_t world = 0;
	if (world_name == NULL)
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_world_tag; // unnamed: goes with this session
		if (request(c, &m, &reply) != 0)
		{
			return 1;
		}
		world = reply.msg.message.reply.result.created.id;
		snc_message_free(&reply);
	}
	else
	{
		sinew_v1_WorldInfo w;
		if (find_world(c, world_name, &w) != 0)
		{
			return 1;
		}
		world = w.world_id;
		take_control(c, &w);
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

// ---- a URDF's mesh files ------------------------------------------------------------------------------

// The mesh files a URDF names, found on this disk as the server's importer finds them (core/model:
// package:// on --package-path, then SINEW_MODEL_PATH, then the folders above the URDF; file://, absolute
// and relative paths), hashed.
typedef struct model_file
{
	char uri[SNM_PATH_MAX];
	unsigned char* data; // NULL: not found here (the server may have it on its model path)
	size_t size;
	uint8_t sha256[32];
	snm_asset asset;
} model_file;

typedef struct model_files
{
	model_file* files;
	int count;
	int found;
} model_files;

static void model_files_free(model_files* m)
{
	for (int i = 0; i < m->count; ++i)
	{
		if (m->files[i].asset.release != NULL)
		{
			m->files[i].asset.release(m->files[i].asset.release_context, m->files[i].asset.data);
		}
	}
	free(m->files);
	memset(m, 0, sizeof(*m));
}

static bool add_uri(model_files* m, const char* uri, int capacity)
{
	for (int i = 0; i < m->count; ++i)
	{
		if (strcmp(m->files[i].uri, uri) == 0)
		{
			return true;
		}
	}
	if (m->count >= capacity)
	{
		return false;
	}
	model_file* f = m->files + m->count++;
	memset(f, 0, sizeof(*f));
	snprintf(f->uri, sizeof(f->uri), "%s", uri);
	return true;
}

// "DIR:PARENT:...:/" of a folder: a URDF's ancestors, where its package:// packages may be.
static void ancestors(const char* folder, char* out, size_t capacity)
{
	char path[4096];
	char* resolved = realpath(folder, NULL);
	snprintf(path, sizeof(path), "%s", resolved != NULL ? resolved : folder);
	free(resolved);
	size_t used = 0;
	out[0] = '\0';
	for (;;)
	{
		int w = snprintf(out + used, capacity - used, "%s%s", used > 0 ? ":" : "", path);
		if (w < 0 || (size_t)w >= capacity - used)
		{
			return;
		}
		used += (size_t)w;
		char* slash = strrchr(path, '/');
		if (slash == NULL || slash == path)
		{
			if (strcmp(path, "/") != 0)
			{
				snprintf(out + used, capacity - used, ":/");
			}
			return;
		}
		*slash = '\0';
	}
}

static int gather_files(cli* c, const char* urdf_path, const char* text, size_t size, const char* package_path,
						model_files* out)
{
	memset(out, 0, sizeof(*out));
	snm_model* model = NULL;
	snm_error error;
	if (snm_parse_urdf(text, size, urdf_path, NULL, &model, &error) != SN_ERR_OK)
	{
		return 0; // the server says what is wrong with it, with line and column
	}
	int capacity = model->visual_count + model->collision_count;
	out->files = calloc((size_t)(capacity > 0 ? capacity : 1), sizeof(model_file));
	if (out->files == NULL)
	{
		snm_model_destroy(model);
		return bad_argument(c, "out of memory");
	}
	for (int i = 0; i < model->visual_count; ++i)
	{
		if (model->visuals[i].type == SNM_GEOMETRY_MESH)
		{
			add_uri(out, model->visuals[i].mesh, capacity);
		}
	}
	for (int i = 0; i < model->collision_count; ++i)
	{
		if (model->collisions[i].type == SNM_GEOMETRY_MESH)
		{
			add_uri(out, model->collisions[i].mesh, capacity);
		}
	}
	snm_model_destroy(model);
	char dir[2048];
	const char* slash = strrchr(urdf_path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash != NULL ? (int)(slash - urdf_path) : 1, slash != NULL ? urdf_path : ".");
	if (dir[0] == '\0')
	{
		snprintf(dir, sizeof(dir), "/");
	}
	char above[4096];
	ancestors(dir, above, sizeof(above));
	snm_mesh_options o = snm_default_mesh_options();
	o.base_dir = dir;
	o.use_env_path = false; // SINEW_MODEL_PATH is searched below, before the folders above the URDF
	const char* env = getenv("SINEW_MODEL_PATH");
	char searched[12288];
	snprintf(searched, sizeof(searched), "%s%s%s", package_path != NULL ? package_path : "",
			 package_path != NULL ? ":" : "", env != NULL ? env : "");
	size_t n = strlen(searched);
	snprintf(searched + n, sizeof(searched) - n, "%s%s", n > 0 && searched[n - 1] != ':' ? ":" : "", above);
	o.package_path = searched;
	for (int i = 0; i < out->count; ++i)
	{
		model_file* f = out->files + i;
		char looked[640] = "";
		if (snm_resolve_file(&o, f->uri, (size_t)1 << 30, &f->asset, looked, sizeof(looked)) != SN_ERR_OK)
		{
			memset(&f->asset, 0, sizeof(f->asset));
			continue; // not here: the server may have it (package:// on its model path), else it says so
		}
		f->data = (unsigned char*)f->asset.data;
		f->size = f->asset.size;
		if (!wire_sha256(f->data, f->size, f->sha256))
		{
			return bad_argument(c, "cannot hash %s", f->uri);
		}
		out->found += 1;
	}
	return 0;
}

// Send the files the server lacks (FindAssets, then PutAsset each). *sent and *sent_bytes count them.
static int upload_files(cli* c, const model_files* m, int* sent, size_t* sent_bytes)
{
	*sent = 0;
	*sent_bytes = 0;
	for (int start = 0; start < m->count; start += c->max_assets_per_load)
	{
		int count = 0;
		uint8_t(*hashes)[32] = malloc((size_t)(c->max_assets_per_load + 1) * 32);
		if (hashes == NULL)
		{
			return 1;
		}
		for (int i = start; i < m->count && i < start + c->max_assets_per_load; ++i)
		{
			if (m->files[i].data != NULL)
			{
				memcpy(hashes[count++], m->files[i].sha256, 32);
			}
		}
		snc_message reply;
		int err =
			count > 0 ? snc_find_assets(c->client, (const uint8_t(*)[32])hashes, count, &reply, c->timeout_ms) : 0;
		free(hashes);
		if (count == 0)
		{
			continue;
		}
		if (err != 0 || snc_reply_code(&reply) != 0)
		{
			fprintf(stderr, "sinew load-urdf: find assets: %s\n",
					err != 0 ? snc_error_string(err) : snc_reply_text(&reply));
			if (err == 0)
			{
				snc_message_free(&reply);
			}
			return 1;
		}
		for (int k = 0; k < reply.hash_count; ++k)
		{
			for (int i = start; i < m->count && i < start + c->max_assets_per_load; ++i)
			{
				const model_file* f = m->files + i;
				if (f->data == NULL || memcmp(f->sha256, reply.hashes[k], 32) != 0)
				{
					continue;
				}
				snc_message put;
				err = snc_put_asset(c->client, f->data, f->size, f->sha256, &put, c->timeout_ms);
				if (err != 0 || snc_reply_code(&put) != 0)
				{
					fprintf(stderr, "sinew load-urdf: sending %s: %s\n", f->uri,
							err != 0 ? snc_error_string(err) : snc_reply_text(&put));
					if (err == 0)
					{
						snc_message_free(&put);
					}
					snc_message_free(&reply);
					return 1;
				}
				snc_message_free(&put);
				*sent += 1;
				*sent_bytes += f->size;
				break; // the same content under two names goes once
			}
		}
		snc_message_free(&reply);
	}
	return 0;
}

static int cmd_load_urdf(cli* c, int argc, char** argv)
{
	if (argc < 2)
	{
		return bad_argument(c, "expected WORLD FILE (a world's name or id and a URDF file), got %d arguments", argc);
	}
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.file_name = argv[1];
	sinew_v1_Drive all = sinew_v1_Drive_init_zero;
	sinew_v1_Transform pose = sinew_v1_Transform_init_zero;
	sinew_v1_JointValue initial[64];
	const char* package_path = NULL;
	bool on_server = false, missing_ok = false;
	for (int i = 2; i < argc; i += 2)
	{
		if (strcmp(argv[i], "--on-server") == 0 || strcmp(argv[i], "--missing-meshes-ok") == 0)
		{
			*(argv[i][2] == 'o' ? &on_server : &missing_ok) = true;
			i -= 1;
			continue;
		}
		const char* v = option_value(c, argc, argv, i);
		if (v == NULL)
		{
			return 2;
		}
		double g[3];
		char extra;
		if (strcmp(argv[i], "--drive-all") == 0)
		{
			if (sscanf(v, "%lf,%lf%c", g, g + 1, &extra) != 2 || !(g[0] >= 0.0) || !(g[1] >= 0.0))
			{
				return bad_argument(c, "--drive-all: expected KP,KD (stiffness and damping, >= 0), got \"%s\"", v);
			}
			all.enabled = true;
			all.type = sinew_v1_DriveType_DRIVE_FORCE;
			all.stiffness = g[0];
			all.damping = g[1];
			r.drive_all = &all;
		}
		else if (strcmp(argv[i], "--base") == 0)
		{
			if (strcmp(v, "fixed") == 0)
			{
				r.base_mode = sinew_v1_BaseMode_BASE_FIXED;
			}
			else if (strcmp(v, "floating") == 0)
			{
				r.base_mode = sinew_v1_BaseMode_BASE_FLOATING;
			}
			else if (strcmp(v, "auto") == 0)
			{
				r.base_mode = sinew_v1_BaseMode_BASE_AUTO;
			}
			else
			{
				return bad_argument(c, "--base: expected auto, fixed or floating, got \"%s\"", v);
			}
		}
		else if (strcmp(argv[i], "--package-path") == 0)
		{
			package_path = v;
		}
		else if (strcmp(argv[i], "--at") == 0)
		{
			if (!parse_vec3(v, g))
			{
				return bad_argument(c, "--at: expected X,Y,Z in m, got \"%s\"", v);
			}
			pose.has_position = true;
			pose.position.x = g[0];
			pose.position.y = g[1];
			pose.position.z = g[2];
			r.base_pose = &pose;
		}
		else if (strcmp(argv[i], "--initial") == 0)
		{
			if (r.initial_count >= 64)
			{
				return bad_argument(c, "--initial: at most 64 of them");
			}
			sinew_v1_JointValue* jv = initial + r.initial_count;
			*jv = (sinew_v1_JointValue)sinew_v1_JointValue_init_zero;
			const char* eq = strrchr(v, '=');
			if (eq == NULL || eq == v || (size_t)(eq - v) >= sizeof(jv->joint) || !parse_double(eq + 1, &jv->value))
			{
				return bad_argument(c, "--initial: expected JOINT=Q (rad or m), got \"%s\"", v);
			}
			memcpy(jv->joint, v, (size_t)(eq - v));
			r.initial = initial;
			r.initial_count += 1;
		}
		else
		{
			return bad_argument(c, "unknown option %s", argv[i]);
		}
	}
	sinew_v1_WorldInfo w;
	if (find_world(c, argv[0], &w) != 0)
	{
		return 1;
	}
	r.world_id = w.world_id;
	r.missing_meshes_ok = missing_ok;
	// An ownerless world (the demo, a world kept by the command line) is taken over first.
	take_control(c, &w);
	snc_message reply;
	int err = 0;
	if (on_server)
	{
		// FILE names a model on the server's model path.
		err = snc_load_urdf_assets(c->client, &r, NULL, 0, argv[1], &reply, c->timeout_ms);
	}
	else
	{
		size_t size = 0;
		char* text = read_file(argv[1], &size);
		if (text == NULL)
		{
			return 1;
		}
		r.urdf = text;
		r.urdf_size = size;
		// Its mesh files, each sent once: those the server has already are named by hash only.
		model_files files;
		int code = gather_files(c, argv[1], text, size, package_path, &files);
		snc_asset* assets = code == 0 ? calloc((size_t)(files.count + 1), sizeof(snc_asset)) : NULL;
		int sent = 0, count = 0;
		size_t sent_bytes = 0;
		for (int attempt = 0; code == 0 && assets != NULL && attempt < 2; ++attempt)
		{
			code = upload_files(c, &files, &sent, &sent_bytes);
			count = 0;
			for (int i = 0; i < files.count; ++i)
			{
				if (files.files[i].data != NULL)
				{
					assets[count++] = (snc_asset){ files.files[i].uri, files.files[i].sha256, NULL, 0 };
				}
			}
			if (code != 0)
			{
				break;
			}
			err = snc_load_urdf_assets(c->client, &r, assets, count, NULL, &reply, c->timeout_ms);
			// A file the server dropped between the upload and the load: once more.
			if (err == 0 && snc_reply_code(&reply) == sinew_v1_ErrorCode_ERR_UNKNOWN_ASSET && attempt == 0)
			{
				snc_message_free(&reply);
				continue;
			}
			break;
		}
		if (code == 0 && assets != NULL)
		{
			fprintf(stderr, "sinew: mesh files: %d named, %d found here, %d sent (%zu bytes)\n", files.count, count,
					sent, sent_bytes);
		}
		free(assets);
		model_files_free(&files);
		free(text);
		if (code != 0 || assets == NULL)
		{
			return code != 0 ? code : 1;
		}
	}
	if (err != 0)
	{
		fprintf(stderr, "sinew load-urdf: %s\n", snc_error_string(err));
		return 1;
	}
	if (snc_reply_code(&reply) != 0)
	{
		fprintf(stderr, "sinew load-urdf: the server refused: %s (%d): %s\n",
				sinew_v1_ErrorCode_name((sinew_v1_ErrorCode)snc_reply_code(&reply)), (int)snc_reply_code(&reply),
				snc_reply_text(&reply));
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
	for (int i = 0; i < reply.urdf_warning_count; ++i)
	{
		fprintf(stderr, "sinew: warning: %s\n", reply.urdf_warnings[i]);
	}
	snc_message_free(&reply);
	return 0;
}

static int cmd_help(cli* c, int argc, char** argv);

static const command_row commands[] = {
	{ "worlds", cmd_worlds, true, "worlds                      list the server's worlds", NULL },
	{ "create-world", cmd_create_world, true,
	  "create-world [--name N] [--dt S] [--solver pgs|tgs|xpbd|direct] [--iterations N]\n"
	  "             [--velocity-iterations N] [--substeps N] [--gravity X,Y,Z]\n"
	  "             [--mode paused|realtime|fast|lockstep] [--rate R] [--no-keep]\n"
	  "                            create a world; prints its id",
	  "Names are unique on a server (a taken name is refused: ERR_NAME_TAKEN). The world is kept after\n"
	  "this command exits (ownerless: anyone may take it over) unless --no-keep, which ties it to this\n"
	  "command's session, so it goes when the command ends. (A world a script creates through a client\n"
	  "library goes with the script's connection unless it asks for keep_after_disconnect.)\n"
	  "  --dt S          time step, s (default 0.001)\n"
	  "  --solver NAME   pgs (sequential impulses), tgs (default: sub-stepped PGS), xpbd, direct (sparse\n"
	  "                  LDL^T); articulations step with TGS in xpbd and direct worlds\n"
	  "  --iterations N  position iterations (TGS and XPBD: sub-steps), --velocity-iterations N,\n"
	  "                  --substeps N\n"
	  "  --gravity X,Y,Z m/s^2 (default 0,0,-9.81)\n"
	  "  --mode M        paused (default: steps with `sinew step`), realtime (at --rate), fast, lockstep" },
	{ "destroy-world", cmd_destroy_world, true,
	  "destroy-world WORLD [--yes] destroy a world, after a confirmation (--yes: without one)",
	  "An ownerless world is taken over first. The demo world is protected unless sinewd was started with\n"
	  "--allow-demo-destroy." },
	{ "step", cmd_step, true, "step WORLD N                step a paused world N times (joins it as a controller)",
	  NULL },
	{ "play", cmd_play, true, "play WORLD [--rate R]       run a world in real time (R simulated seconds per second)",
	  NULL },
	{ "pause", cmd_pause, true, "pause WORLD                 stop a world's time (then `sinew step` steps it)", NULL },
	{ "reset", cmd_reset, true, "reset WORLD                 back to the world's reset point (its start)",
	  "The reset point is what the world held when it was created, cloned or restored: a robot loaded\n"
	  "into it afterwards (load-urdf) is not part of it, and reset takes such a world back to empty. The\n"
	  "demo world's reset point holds its robot at rest, and resetting it gives the demo its own motion back." },
	{ "target", cmd_target, true, "target WORLD JOINT=VALUE... set drive targets by joint name (rad or m)",
	  "Joints are named as in the URDF (see `sinew state WORLD`); without a URDF, link<i> after the link the\n"
	  "joint moves; with several articulations, a<id>/JOINT. Targets outside a joint's limits are refused.\n"
	  "The demo's own motion stands by once a client sets a target, until `sinew reset demo`." },
	{ "watch", cmd_watch, true,
	  "watch WORLD [--rate HZ] [--count N]\n"
	  "                            print joint positions as they stream (default 10 Hz, until Ctrl-C)",
	  NULL },
	{ "state", cmd_state, true, "state WORLD                 print the world's joints (by name, with units) and bodies",
	  NULL },
	{ "bench-server", cmd_bench_server, true,
	  "bench-server [--world W] [--count N]\n"
	  "                            step-1 round-trip latency (p50/p99/p99.9) on W or a new empty world",
	  NULL },
	{ "load-urdf", cmd_load_urdf, true,
	  "load-urdf WORLD FILE [--drive-all KP,KD] [--base auto|fixed|floating] [--at X,Y,Z] [--initial J=Q]...\n"
	  "          [--package-path DIRS] [--on-server] [--missing-meshes-ok]\n"
	  "                            load a URDF robot into a world; prints its articulation, joints and links",
	  "The mesh files the URDF names go with it, each once: package://NAME/PATH is looked for in the\n"
	  "folders of --package-path, then of SINEW_MODEL_PATH, then in the folders above the URDF (as ROS finds\n"
	  "packages); relative paths beside the URDF. Files the server has already (by SHA-256) are not sent again;\n"
	  "a file not found here is left to the server (package:// on its --model-path).\n"
	  "  --on-server          FILE is a model on the server's model path (NAME/PATH or package://NAME/PATH)\n"
	  "  --missing-meshes-ok  a mesh file nobody has is left out with a warning instead of an error" },
	{ "sim", cmd_sim, false,
	  "sim MODEL.urdf [options]    run a URDF offline on the embedded core, no server (sinew sim --help)", NULL },
	{ "help", cmd_help, false, "help                        this text", NULL },
};

static int cmd_help(cli* c, int argc, char** argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	printf("usage: sinew [--host H] [--port P] [--ws] [--token T] [--timeout MS] COMMAND [ARGS]\n"
		   "Talks to sinewd: the host and port from --host and --port, else from the variables sinewd reads,\n"
		   "SINEW_HOST (default 127.0.0.1) and SINEW_TCP_PORT (default 7420; with --ws, SINEW_WS_PORT, default\n"
		   "7421); the token from --token or SINEW_TOKEN. WORLD is a world's name or id (sinew worlds).\n"
		   "`sinew COMMAND --help` says more about one command.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); ++i)
	{
		printf("  %s\n", commands[i].usage);
	}
	return 0;
}

// The port of an environment variable, or `fallback` (0: the transport's default) if it is not set.
static bool env_port(const char* name, int* port)
{
	const char* v = getenv(name);
	uint64_t u = 0;
	if (v == NULL || v[0] == '\0')
	{
		return true;
	}
	if (!parse_u64(v, &u) || u == 0 || u > 65535)
	{
		fprintf(stderr, "sinew: %s: expected a port in [1, 65535], got \"%s\"\n", name, v);
		return false;
	}
	*port = (int)u;
	return true;
}

int main(int argc, char** argv)
{
	signal(SIGPIPE, SIG_IGN);
	cli c;
	memset(&c, 0, sizeof(c));
	c.options = snc_default_options();
	c.timeout_ms = 10000;
	c.token = getenv("SINEW_TOKEN");
	c.command = "";
	const char* host = getenv("SINEW_HOST");
	int port = 0;
	bool port_given = false;
	int i = 1;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; ++i)
	{
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t u = 0;
		if (strcmp(argv[i], "--host") == 0 && v != NULL)
		{
			host = v;
			i += 1;
		}
		else if (strcmp(argv[i], "--port") == 0 && parse_u64(v, &u) && u > 0 && u <= 65535)
		{
			port = (int)u;
			port_given = true;
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
		else if (strcmp(argv[i], "--host") == 0 || strcmp(argv[i], "--port") == 0 || strcmp(argv[i], "--token") == 0 ||
				 strcmp(argv[i], "--timeout") == 0)
		{
			fprintf(stderr, "sinew: %s needs %s\n", argv[i],
					strcmp(argv[i], "--port") == 0          ? "a port in [1, 65535]"
						: strcmp(argv[i], "--timeout") == 0 ? "a time in ms above 0"
															: "a value");
			return 2;
		}
		else
		{
			fprintf(stderr, "sinew: unknown option %s (see sinew help)\n", argv[i]);
			return 2;
		}
	}
	if (!port_given && !env_port(c.options.transport == SNC_WS ? "SINEW_WS_PORT" : "SINEW_TCP_PORT", &port))
	{
		return 2;
	}
	c.options.port = port != 0 ? port : (c.options.transport == SNC_WS ? 7421 : 7420);
	// sinewd's wildcard listen addresses are not addresses to connect to: its loopback is.
	if (host != NULL && host[0] != '\0')
	{
		c.options.host = strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : strcmp(host, "::") == 0 ? "::1" : host;
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
	c.command = row->name;
	// COMMAND --help: its usage and notes, without connecting (sim has its own).
	for (int k = i + 1; k < argc && row->run != cmd_sim; ++k)
	{
		if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0)
		{
			printf("usage: sinew %s\n%s%s", row->usage, row->help != NULL ? row->help : "",
				   row->help != NULL ? "\n" : "");
			return 0;
		}
	}
	if (row->connects)
	{
		int err = snc_connect(&c.options, &c.client);
		if (err == 0)
		{
			sinew_v1_HandshakeReply hr;
			err = snc_handshake(c.client, "sinew-cli", c.token, sinew_v1_Role_ROLE_CONTROLLER, &hr);
			c.max_assets_per_load = hr.max_assets_per_load > 0 ? (int)hr.max_assets_per_load : 256;
			if (err == SNC_REFUSED)
			{
				fprintf(stderr, "sinew: the server refused: %s\n", hr.status.message);
				snc_close(c.client);
				return 1;
			}
		}
		if (err != 0)
		{
			fprintf(stderr, "sinew: cannot connect to %s:%d%s: %s\n", c.options.host, c.options.port,
					c.options.transport == SNC_WS ? " (WebSocket)" : "", snc_error_string(err));
			if (err == -ECONNREFUSED)
			{
				fprintf(stderr,
						"(is sinewd running there? `bash scripts/run.sh` starts one; SINEW_HOST and %s, or "
						"--host and --port, say where it is)\n",
						c.options.transport == SNC_WS ? "SINEW_WS_PORT" : "SINEW_TCP_PORT");
			}
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
