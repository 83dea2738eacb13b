// `sinew sim MODEL.urdf [options]`: load a URDF, build it into a world on the embedded core, step it, and
// write the joint positions.
//
// CSV (--csv FILE, "-" for stdout): a header `t,` followed by one column per coordinate of every joint that
// moves, in the URDF's joint order: a revolute, continuous or prismatic joint is one column named after
// the joint (rad or m). A joint with several coordinates has one column per coordinate, named JOINT.c:
// the floating base as JOINT.x, JOINT.y, JOINT.z (world position of its link frame, m) and JOINT.rx,
// JOINT.ry, JOINT.rz (rotation vector of its orientation, world frame, rad); a spherical joint (which URDF
// cannot express, but the runner writes whatever the articulation has) as JOINT.rx, JOINT.ry, JOINT.rz.
// A base made to float (--base floating) without a floating joint has the six base columns first, named
// after the base link. Fixed joints have no column. Then one row for t = 0 and one after every K-th step (--every K), so
// 1 + floor(steps / K) rows. t in s. Numbers are written with %.17g (they read back to the same double).
// A name with a comma, quote or line break is quoted as CSV says.
//
// Without --csv the final position of every joint is printed on stdout, one `name = value` per line.
// Progress goes to stderr: a line that updates in place on a terminal (twice a second), or one line every
// 5 s otherwise, only once a run has lasted more than a second; --quiet silences it and the summary.
#define _POSIX_C_SOURCE 200809L // clock_gettime, isatty

#include "sim.h"

#include "sinew/model.h"
#include "sinew/sinew.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DRIVES 1024
#define MAX_INITIAL 1024
#define MAX_STEPS 1000000000000LL // 1e12: a bound on a typo, not on patience

static const char usage[] =
	"usage: sinew sim MODEL.urdf [options]\n"
	"Runs a URDF model on the embedded core (no server) and writes joint positions.\n"
	"  --solver NAME          pgs, tgs, xpbd or direct (default tgs)\n"
	"  --dt S                 time step, s, in (0, 1] (default 0.001)\n"
	"  --steps N              number of steps (default: 1 s of simulated time)\n"
	"  --duration S           simulated time, s; the steps are round(S / dt); not with --steps\n"
	"  --gravity X,Y,Z        m/s^2 (default 0,0,-9.81)\n"
	"  --drive JOINT=KP,KD,TARGET   a force drive on one joint: stiffness N*m/rad or N/m, damping\n"
	"                         N*m*s/rad or N*s/m, target rad or m; max force = the URDF effort (repeatable)\n"
	"  --drive-all KP,KD      the same drive on every joint but mimic followers, holding its initial position\n"
	"  --initial JOINT=Q      initial position, rad or m (repeatable); mimic followers follow, and a follower\n"
	"                         given here moves its leader to (Q - offset) / multiplier\n"
	"  --base auto|fixed|floating   how the root is held (default auto: floating only under a floating joint)\n"
	"  --velocity-limits drive|joint|none   what <limit velocity> bounds (default drive): the drives' speed\n"
	"                         towards their targets (the actuator's limit: the joint itself moves freely),\n"
	"                         a hard cap on the joint's speed, or nothing; a mimic follower's is |multiplier|\n"
	"                         times its leader's\n"
	"  --massless-link-mass M give links without mass that move on their own joint M kg (default: an error)\n"
	"  --balance-inertia      repair inertias that violate the triangle inequality (default: an error)\n"
	"  --keep-fixed-links     keep links with mass on fixed joints as their own links (default: merged into\n"
	"                         their parent, as MuJoCo's fusestatic)\n"
	"  --every K              write a row every K steps (default 1)\n"
	"  --csv FILE             write CSV to FILE (- for stdout); header t, then one column per joint coordinate\n"
	"  --quiet                no progress line and no summary on stderr\n"
	"  --help                 this text\n"
	"What the importer ignored, merged, substituted or repaired is printed on stderr as warnings.\n"
	"Exit status: 0 done, 1 the model or the simulation failed, 2 a bad option.\n";

typedef struct sim_options
{
	const char* model_path;
	sn_solver solver;
	double dt;
	long long steps; // -1 until known
	double duration; // -1 when not given
	sn_vec3 gravity;
	snm_drive_gains drives[MAX_DRIVES];
	int drive_count;
	bool drive_all;
	double drive_all_kp, drive_all_kd;
	snm_joint_value initial[MAX_INITIAL];
	int initial_count;
	snm_base_mode base_mode;
	snm_velocity_limits velocity_limits;
	double massless_link_mass;
	bool balance_inertia;
	bool keep_fixed_links;
	long long every;
	const char* csv_path;
	bool quiet;
} sim_options;

// A column of the CSV: a joint and which of its coordinates.
typedef struct column
{
	const char* name; // the model joint's name (the base link's for a floating base without a floating joint)
	int dof;          // articulation dof, or -1 for the floating base
	int component;    // floating base: 0..5 (x, y, z, rx, ry, rz)
	char suffix[4];
} column;

static int bad_option(const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

static int bad_option(const char* format, ...)
{
	va_list args;
	va_start(args, format);
	fprintf(stderr, "sinew sim: ");
	vfprintf(stderr, format, args);
	fprintf(stderr, "\n(sinew sim --help lists the options)\n");
	va_end(args);
	return 2;
}

static bool parse_double(const char* text, double* out)
{
	char* end = NULL;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end != '\0' || !isfinite(v))
	{
		return false;
	}
	*out = v;
	return true;
}

static bool parse_count(const char* text, long long* out)
{
	char* end = NULL;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end == text || *end != '\0' || errno != 0 || v < 0)
	{
		return false;
	}
	*out = v;
	return true;
}

// "a,b,c" into count finite numbers.
static bool parse_list(const char* text, double* out, int count)
{
	char buffer[256];
	if (strlen(text) >= sizeof(buffer))
	{
		return false;
	}
	strcpy(buffer, text);
	char* s = buffer;
	for (int i = 0; i < count; ++i)
	{
		char* comma = strchr(s, ',');
		if ((comma == NULL) != (i == count - 1))
		{
			return false;
		}
		if (comma != NULL)
		{
			*comma = '\0';
		}
		if (!parse_double(s, &out[i]))
		{
			return false;
		}
		s = comma != NULL ? comma + 1 : s;
	}
	return true;
}

// "NAME=rest": splits at the last '=' so that a joint name may itself contain '='.
static bool split_assignment(char* text, char** name, char** rest)
{
	char* eq = strrchr(text, '=');
	if (eq == NULL || eq == text || eq[1] == '\0')
	{
		return false;
	}
	*eq = '\0';
	*name = text;
	*rest = eq + 1;
	return true;
}

static int parse_options(int argc, char** argv, sim_options* o)
{
	memset(o, 0, sizeof(*o));
	o->solver = SN_SOLVER_TGS;
	o->dt = 0.001;
	o->steps = -1;
	o->duration = -1.0;
	o->gravity = sn_v3(0.0, 0.0, -9.81);
	o->base_mode = SNM_BASE_AUTO;
	o->every = 1;
	for (int i = 1; i < argc; ++i)
	{
		char* arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			fputs(usage, stdout);
			return -1;
		}
		if (strcmp(arg, "--quiet") == 0)
		{
			o->quiet = true;
			continue;
		}
		if (strcmp(arg, "--balance-inertia") == 0)
		{
			o->balance_inertia = true;
			continue;
		}
		if (strcmp(arg, "--keep-fixed-links") == 0)
		{
			o->keep_fixed_links = true;
			continue;
		}
		if (strncmp(arg, "--", 2) != 0)
		{
			if (o->model_path != NULL)
			{
				return bad_option("one model only; '%s' is a second one", arg);
			}
			o->model_path = arg;
			continue;
		}
		// --name value or --name=value
		char name[32];
		char* value = strchr(arg, '=');
		size_t name_length = value != NULL ? (size_t)(value - arg) : strlen(arg);
		if (name_length >= sizeof(name))
		{
			return bad_option("unknown option '%s'", arg);
		}
		memcpy(name, arg, name_length);
		name[name_length] = '\0';
		if (value != NULL)
		{
			++value;
		}
		else if (i + 1 < argc)
		{
			value = argv[++i];
		}
		else
		{
			return bad_option("option '%s' needs a value", arg);
		}

		if (strcmp(name, "--solver") == 0)
		{
			int s = 0;
			while (s < SN_SOLVER_COUNT && strcmp(sn_solver_name((sn_solver)s), value) != 0)
			{
				++s;
			}
			if (s == SN_SOLVER_COUNT)
			{
				return bad_option("--solver '%s': expected pgs, tgs, xpbd or direct", value);
			}
			o->solver = (sn_solver)s;
		}
		else if (strcmp(name, "--dt") == 0)
		{
			if (!parse_double(value, &o->dt) || !(o->dt > 0.0 && o->dt <= 1.0))
			{
				return bad_option("--dt '%s': expected a time step in (0, 1] s", value);
			}
		}
		else if (strcmp(name, "--steps") == 0)
		{
			if (!parse_count(value, &o->steps) || o->steps > MAX_STEPS)
			{
				return bad_option("--steps '%s': expected a whole number from 0 to 1e12", value);
			}
		}
		else if (strcmp(name, "--duration") == 0)
		{
			if (!parse_double(value, &o->duration) || o->duration < 0.0)
			{
				return bad_option("--duration '%s': expected a time >= 0 s", value);
			}
		}
		else if (strcmp(name, "--gravity") == 0)
		{
			double g[3];
			if (!parse_list(value, g, 3))
			{
				return bad_option("--gravity '%s': expected X,Y,Z in m/s^2", value);
			}
			o->gravity = sn_v3(g[0], g[1], g[2]);
		}
		else if (strcmp(name, "--drive") == 0)
		{
			char *joint, *rest;
			double v[3];
			if (o->drive_count >= MAX_DRIVES)
			{
				return bad_option("more than %d --drive options", MAX_DRIVES);
			}
			if (!split_assignment(value, &joint, &rest) || !parse_list(rest, v, 3) || v[0] < 0.0 || v[1] < 0.0)
			{
				return bad_option("--drive '%s': expected JOINT=KP,KD,TARGET with KP, KD >= 0", value);
			}
			snm_drive_gains* g = &o->drives[o->drive_count++];
			g->joint = joint;
			g->drive = sn_default_drive();
			g->drive.enabled = true;
			g->drive.type = SN_DRIVE_FORCE;
			g->drive.stiffness = v[0];
			g->drive.damping = v[1];
			g->drive.target_position = v[2];
			g->drive.target_velocity = 0.0;
			g->max_force_from_effort = true;
		}
		else if (strcmp(name, "--drive-all") == 0)
		{
			double v[2];
			if (!parse_list(value, v, 2) || v[0] < 0.0 || v[1] < 0.0)
			{
				return bad_option("--drive-all '%s': expected KP,KD >= 0", value);
			}
			o->drive_all = true;
			o->drive_all_kp = v[0];
			o->drive_all_kd = v[1];
		}
		else if (strcmp(name, "--initial") == 0)
		{
			char *joint, *rest;
			if (o->initial_count >= MAX_INITIAL)
			{
				return bad_option("more than %d --initial options", MAX_INITIAL);
			}
			double q;
			if (!split_assignment(value, &joint, &rest) || !parse_double(rest, &q))
			{
				return bad_option("--initial '%s': expected JOINT=Q", value);
			}
			o->initial[o->initial_count].joint = joint;
			o->initial[o->initial_count].value = q;
			o->initial_count++;
		}
		else if (strcmp(name, "--base") == 0)
		{
			if (strcmp(value, "auto") == 0)
			{
				o->base_mode = SNM_BASE_AUTO;
			}
			else if (strcmp(value, "fixed") == 0)
			{
				o->base_mode = SNM_BASE_FIXED;
			}
			else if (strcmp(value, "floating") == 0)
			{
				o->base_mode = SNM_BASE_FLOATING;
			}
			else
			{
				return bad_option("--base '%s': expected auto, fixed or floating", value);
			}
		}
		else if (strcmp(name, "--velocity-limits") == 0)
		{
			int mode = 0;
			while (mode <= SNM_VELOCITY_LIMITS_NONE &&
				   strcmp(snm_velocity_limits_name((snm_velocity_limits)mode), value) != 0)
			{
				++mode;
			}
			if (mode > SNM_VELOCITY_LIMITS_NONE)
			{
				return bad_option("--velocity-limits '%s': expected drive, joint or none", value);
			}
			o->velocity_limits = (snm_velocity_limits)mode;
		}
		else if (strcmp(name, "--massless-link-mass") == 0)
		{
			if (!parse_double(value, &o->massless_link_mass) || !(o->massless_link_mass > 0.0))
			{
				return bad_option("--massless-link-mass '%s': expected a mass > 0 kg", value);
			}
		}
		else if (strcmp(name, "--every") == 0)
		{
			if (!parse_count(value, &o->every) || o->every < 1)
			{
				return bad_option("--every '%s': expected a whole number >= 1", value);
			}
		}
		else if (strcmp(name, "--csv") == 0)
		{
			if (value[0] == '\0')
			{
				return bad_option("--csv needs a file name");
			}
			o->csv_path = value;
		}
		else
		{
			return bad_option("unknown option '%s'", arg);
		}
	}
	if (o->model_path == NULL)
	{
		return bad_option("no model given");
	}
	if (o->steps >= 0 && o->duration >= 0.0)
	{
		return bad_option("give --steps or --duration, not both");
	}
	if (o->steps < 0)
	{
		double steps = floor((o->duration >= 0.0 ? o->duration : 1.0) / o->dt + 0.5);
		if (!(steps <= (double)MAX_STEPS))
		{
			return bad_option("--duration: more than 1e12 steps");
		}
		o->steps = (long long)steps;
	}
	return 0;
}

static void print_warnings(const snm_warning* warnings, int count, int dropped)
{
	for (int i = 0; i < count; ++i)
	{
		fprintf(stderr, "sinew sim: warning: %s\n", warnings[i].text);
	}
	if (dropped > 0)
	{
		fprintf(stderr, "sinew sim: warning: %d more warnings\n", dropped);
	}
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Rotation vector (axis times angle, rad) of a unit quaternion, angle in [0, pi].
static sn_vec3 rotation_vector(sn_quat q)
{
	if (q.w < 0.0)
	{
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	sn_vec3 v = sn_v3(q.x, q.y, q.z);
	double s = sn_length(v);
	if (s < 1e-300)
	{
		return sn_scale(2.0, v);
	}
	return sn_scale(2.0 * atan2(s, q.w) / s, v);
}

// One CSV field, quoted when it must be.
static void write_field(FILE* f, const char* text, const char* suffix)
{
	if (strpbrk(text, ",\"\r\n") == NULL)
	{
		fprintf(f, ",%s%s", text, suffix);
		return;
	}
	fputs(",\"", f);
	for (const char* c = text; *c != '\0'; ++c)
	{
		if (*c == '"')
		{
			fputc('"', f);
		}
		fputc(*c, f);
	}
	fprintf(f, "%s\"", suffix);
}

static int make_columns(const snm_model* model, const snm_build_result* built, const sn_world* world, column** out)
{
	int count = 0;
	column* cols = malloc(((size_t)model->joint_count * 6 + 6) * sizeof(column));
	if (cols == NULL)
	{
		return -1;
	}
	static const char* const base_suffix[6] = { ".x", ".y", ".z", ".rx", ".ry", ".rz" };
	static const char* const spherical_suffix[3] = { ".rx", ".ry", ".rz" };
	if (built->floating_joint < 0 && !sn_articulation_is_fixed_base(world, built->articulation))
	{
		// Floating without a floating joint (--base floating): the base columns are named after the base link.
		const char* base_name = model->links[built->articulation_link_model[0]].name;
		for (int c = 0; c < 6; ++c)
		{
			column col = { base_name, -1, c, "" };
			snprintf(col.suffix, sizeof(col.suffix), "%s", base_suffix[c]);
			cols[count++] = col;
		}
	}
	for (int j = 0; j < model->joint_count; ++j)
	{
		if (j == built->floating_joint)
		{
			for (int c = 0; c < 6; ++c)
			{
				column col = { model->joints[j].name, -1, c, "" };
				snprintf(col.suffix, sizeof(col.suffix), "%s", base_suffix[c]);
				cols[count++] = col;
			}
			continue;
		}
		int link = built->joint_link[j];
		if (link <= 0)
		{
			continue;
		}
		int dofs = sn_articulation_get_link_dof_count(world, built->articulation, link);
		int first = sn_articulation_get_link_dof_offset(world, built->articulation, link);
		for (int c = 0; c < dofs && c < 3; ++c)
		{
			column col = { model->joints[j].name, first + c, c, "" };
			if (dofs > 1)
			{
				snprintf(col.suffix, sizeof(col.suffix), "%s", spherical_suffix[c]);
			}
			cols[count++] = col;
		}
	}
	*out = cols;
	return count;
}

static void write_row(FILE* f, const sn_world* world, const snm_build_result* built, const column* cols, int count)
{
	fprintf(f, "%.17g", sn_world_get_time(world));
	sn_transform base = sn_articulation_get_link_pose(world, built->articulation, 0);
	sn_vec3 rv = rotation_vector(base.q);
	for (int i = 0; i < count; ++i)
	{
		double v;
		if (cols[i].dof >= 0)
		{
			v = sn_articulation_get_joint_position(world, built->articulation, cols[i].dof);
		}
		else
		{
			double base_values[6] = { base.p.x, base.p.y, base.p.z, rv.x, rv.y, rv.z };
			v = base_values[cols[i].component];
		}
		fprintf(f, ",%.17g", v);
	}
	fputc('\n', f);
}

typedef struct progress
{
	bool enabled;
	bool tty;
	bool shown;
	double start;
	double last;
} progress;

static void show_progress(progress* p, const sn_world* world, long long step, long long steps, bool final)
{
	if (!p->enabled)
	{
		return;
	}
	double now = wall_seconds();
	double elapsed = now - p->start;
	double interval = p->tty ? 0.5 : 5.0;
	if (!final && (elapsed < 1.0 || now - p->last < interval))
	{
		return;
	}
	if (final && !p->shown)
	{
		return;
	}
	p->last = now;
	p->shown = true;
	double t = sn_world_get_time(world);
	fprintf(stderr, "%ssinew sim: step %lld of %lld (%.0f%%), t = %.6g s, %.3g x real time%s", p->tty ? "\r" : "", step,
			steps, steps > 0 ? 100.0 * (double)step / (double)steps : 100.0, t, elapsed > 0.0 ? t / elapsed : 0.0,
			p->tty && !final ? "   " : "\n");
	fflush(stderr);
}

static int run(const sim_options* o, const snm_model* model, sn_world* world, const snm_build_result* built)
{
	column* cols = NULL;
	int count = make_columns(model, built, world, &cols);
	if (count < 0)
	{
		fprintf(stderr, "sinew sim: out of memory\n");
		return 1;
	}
	FILE* csv = NULL;
	if (o->csv_path != NULL)
	{
		csv = strcmp(o->csv_path, "-") == 0 ? stdout : fopen(o->csv_path, "w");
		if (csv == NULL)
		{
			fprintf(stderr, "sinew sim: cannot write %s: %s\n", o->csv_path, strerror(errno));
			free(cols);
			return 1;
		}
		fputs("t", csv);
		for (int i = 0; i < count; ++i)
		{
			write_field(csv, cols[i].name, cols[i].suffix);
		}
		fputc('\n', csv);
		write_row(csv, world, built, cols, count);
	}

	progress p = { !o->quiet, isatty(STDERR_FILENO) != 0, false, wall_seconds(), 0.0 };
	p.last = p.start;
	int status = 0;
	long long step = 0;
	for (; step < o->steps; ++step)
	{
		sn_error err = sn_world_step(world);
		if (err != SN_ERR_OK)
		{
			fprintf(stderr, "%ssinew sim: step %lld failed: %s (%s)\n", p.shown && p.tty ? "\n" : "", step + 1,
					sn_error_name(err), sn_error_message(err));
			status = 1;
			break;
		}
		if (csv != NULL && (step + 1) % o->every == 0)
		{
			write_row(csv, world, built, cols, count);
		}
		if ((step & 255) == 255)
		{
			show_progress(&p, world, step + 1, o->steps, false);
		}
	}
	show_progress(&p, world, step, o->steps, true);

	if (csv != NULL)
	{
		bool failed = ferror(csv) != 0;
		failed = (csv == stdout ? fflush(csv) : fclose(csv)) != 0 || failed;
		if (failed)
		{
			fprintf(stderr, "sinew sim: writing %s failed\n", o->csv_path);
			status = 1;
		}
	}
	else
	{
		for (int i = 0; i < count; ++i)
		{
			sn_transform base = sn_articulation_get_link_pose(world, built->articulation, 0);
			sn_vec3 rv = rotation_vector(base.q);
			double base_values[6] = { base.p.x, base.p.y, base.p.z, rv.x, rv.y, rv.z };
			double v = cols[i].dof >= 0 ? sn_articulation_get_joint_position(world, built->articulation, cols[i].dof)
										: base_values[cols[i].component];
			printf("%s%s = %.17g\n", cols[i].name, cols[i].suffix, v);
		}
	}
	if (!o->quiet && status == 0)
	{
		double elapsed = wall_seconds() - p.start;
		fprintf(stderr, "sinew sim: %lld steps of %.6g s (%.6g s simulated) in %.3g s\n", step, o->dt,
				sn_world_get_time(world), elapsed);
	}
	free(cols);
	return status;
}

int sinew_sim_main(int argc, char** argv)
{
	sim_options* o = malloc(sizeof(*o));
	if (o == NULL)
	{
		fprintf(stderr, "sinew sim: out of memory\n");
		return 1;
	}
	int status = parse_options(argc, argv, o);
	if (status != 0)
	{
		free(o);
		return status < 0 ? 0 : status;
	}

	snm_model* model = NULL;
	snm_error error;
	if (snm_load_urdf_file(o->model_path, NULL, &model, &error) != SN_ERR_OK)
	{
		fprintf(stderr, "sinew sim: %s\n", error.text);
		free(o);
		return 1;
	}

	sn_world_def wd = sn_default_world_def();
	wd.solver = o->solver;
	wd.time_step = o->dt;
	wd.gravity = o->gravity;
	sn_world* world = NULL;
	char detail[256];
	sn_error err = sn_world_def_check(&wd, detail, sizeof(detail));
	if (err == SN_ERR_OK)
	{
		err = sn_world_create(&wd, &world);
		snprintf(detail, sizeof(detail), "%s", sn_error_message(err));
	}
	if (err != SN_ERR_OK)
	{
		fprintf(stderr, "sinew sim: cannot create the world: %s (%s)\n", sn_error_name(err), detail);
		snm_model_destroy(model);
		free(o);
		return 2;
	}

	snm_build_def bd = snm_default_build_def();
	bd.base_mode = o->base_mode;
	bd.drives = o->drives;
	bd.drive_count = o->drive_count;
	bd.initial = o->initial;
	bd.initial_count = o->initial_count;
	bd.velocity_limits = o->velocity_limits;
	bd.massless_link_mass = o->massless_link_mass;
	bd.balance_inertia = o->balance_inertia;
	bd.merge_fixed_links = !o->keep_fixed_links;
	print_warnings(model->warnings, model->warning_count, model->warnings_dropped);
	if (o->drive_all)
	{
		bd.drive_all.drive.enabled = true;
		bd.drive_all.drive.type = SN_DRIVE_FORCE;
		bd.drive_all.drive.stiffness = o->drive_all_kp;
		bd.drive_all.drive.damping = o->drive_all_kd;
		bd.drive_all.max_force_from_effort = true;
	}
	snm_build_result built;
	if (snm_build(world, model, &bd, &built, &error) != SN_ERR_OK)
	{
		// Errors tied to a line are the model's; the others come from the options (joint names, gains).
		fprintf(stderr, "sinew sim: %s\n", error.text);
		status = error.line > 0 ? 1 : 2;
	}
	else
	{
		print_warnings(built.warnings, built.warning_count, built.warnings_dropped);
		status = run(o, model, world, &built);
		snm_build_result_free(&built);
	}
	sn_world_destroy(world);
	snm_model_destroy(model);
	free(o);
	return status;
}
