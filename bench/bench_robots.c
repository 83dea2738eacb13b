// Published robots, per step, against MuJoCo in the same run (issue 17): every URDF in models/robots/ (or
// those named), free motion under gravity from the file's zero pose, dt 1e-4 s, contacts off in both, one
// core. Sinew: the URDF importer with its defaults (TGS, 8 position iterations, 1 velocity iteration,
// fixed links merged, mimic rows, joint limits, URDF damping and friction), plus balance_inertia and a
// 1 g substitute mass for massless moving links, which some published files need. MuJoCo (built with
// SINEW_BENCH_PEERS, Debian's libmujoco-dev 2.2.2, which reads URDF directly): the same text with visual
// and collision elements removed (no meshes are shipped; contacts are off anyway) and a <mujoco> compiler
// element with balanceinertia and a 1 g / 4e-8 kg*m^2 floor for massless moving bodies, Euler
// integrator, its default solver settings. Both load the same joints (the table shows each engine's dof
// count) and step the same time.
//
// Timing: each engine runs --steps steps (default 2000, 0.2 s) --repeat times (default 5) after 200 steps
// of warm-up, the two engines' repeats alternating so that both meet the same load; the figure is the
// fastest repeat's time per step (the one least disturbed by other work on the machine). Then Sinew runs
// --steps more steps, untimed, counting those whose predicted midpoint missed and took a second
// articulated-body pass (sinew_second_pass_share). Prints a table and one BENCH line per robot with the
// ratio Sinew / MuJoCo (below 1: Sinew is faster).
#define _POSIX_C_SOURCE 200809L // nanosleep-free, but clock_gettime and strdup

#include "clock.h"
#include "sinew/sinew.h"

#include "sinew/model.h"

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SINEW_BENCH_MUJOCO
#include <mujoco/mujoco.h>
#endif

#define MAX_ROBOTS 64

typedef struct options
{
	const char* dir;
	const char* only[MAX_ROBOTS];
	int only_count;
	int steps, repeat;
	double dt;
	bool drives;
	bool sinew_only; // skip the peer (for profiling Sinew alone)
	bool peer_only;  // skip Sinew (for profiling the peer alone)
} options;

typedef struct result
{
	double ns_per_step;       // fastest repeat, ns
	double second_pass_share; // Sinew: steps whose midpoint prediction missed, over `steps` untimed steps
	int dofs, links, mimics;
	bool ok;
} result;

static void usage(void)
{
	fprintf(stderr,
			"usage: bench_robots [--dir DIR] [--robot NAME]... [--steps N] [--repeat R] [--dt S] [--drives]\n"
			"  NAME is a file name in DIR without .urdf (default: every URDF in DIR)\n"
			"  --drives adds a PD drive on every joint but mimic followers (Sinew only)\n"
			"  --sinew-only skips the peer, --peer-only skips Sinew (to profile one alone)\n");
}

// ---- Sinew ------------------------------------------------------------------------------------------------

typedef struct sinew_run
{
	snm_model* model;
	sn_world* world;
	snm_build_result built;
	result r;
} sinew_run;

static bool sinew_open(sinew_run* run, const char* path, const options* o)
{
	memset(run, 0, sizeof(*run));
	snm_error error;
	if (snm_load_urdf_file(path, NULL, &run->model, &error) != SN_ERR_OK)
	{
		fprintf(stderr, "sinew: %s\n", error.text);
		return false;
	}
	sn_world_def wd = sn_default_world_def();
	wd.time_step = o->dt;
	if (sn_world_create(&wd, &run->world) != SN_ERR_OK)
	{
		return false;
	}
	snm_build_def bd = snm_default_build_def();
	bd.collision_shapes = false; // contacts are off in both engines (MuJoCo reads the text without collisions)
	bd.balance_inertia = true;
	bd.massless_link_mass = 0.001;
	if (o->drives)
	{
		bd.drive_all.drive.enabled = true;
		bd.drive_all.drive.stiffness = 1e4;
		bd.drive_all.drive.damping = 100.0;
	}
	if (snm_build(run->world, run->model, &bd, &run->built, &error) != SN_ERR_OK)
	{
		fprintf(stderr, "sinew: %s\n", error.text);
		return false;
	}
	run->r.dofs = sn_articulation_get_dof_count(run->world, run->built.articulation);
	run->r.links = sn_articulation_get_link_count(run->world, run->built.articulation);
	run->r.mimics = sn_world_get_mimic_joints(run->world, NULL, 0);
	run->r.ok = true;
	run->r.ns_per_step = INFINITY;
	return true;
}

// Step n times; when timed, keep the fastest time per step.
static void sinew_steps(sinew_run* run, int n, bool timed)
{
	double t0 = bench_now();
	for (int i = 0; i < n && run->r.ok; ++i)
	{
		run->r.ok = sn_world_step(run->world) == SN_ERR_OK;
	}
	if (timed)
	{
		run->r.ns_per_step = fmin(run->r.ns_per_step, 1e9 * (bench_now() - t0) / n);
	}
}

// After the timed repeats: n more steps, untimed, counting the solves whose predicted midpoint missed and
// took a second pass (sn_solver_stats.artic_midpoint_passes; artic/dynamics.c).
static void sinew_count_second_passes(sinew_run* run, int n)
{
	long passes = 0;
	int done = 0;
	for (; done < n && run->r.ok; ++done)
	{
		run->r.ok = sn_world_step(run->world) == SN_ERR_OK;
		passes += sn_world_get_solver_stats(run->world).artic_midpoint_passes;
	}
	run->r.second_pass_share = done > 0 ? (double)passes / done : 0.0;
}

static void sinew_close(sinew_run* run)
{
	if (run->world != NULL && !run->r.ok)
	{
		fprintf(stderr, "sinew: a step failed (%s)\n", sn_world_last_error_detail(run->world));
	}
	snm_build_result_free(&run->built);
	sn_world_destroy(run->world);
	snm_model_destroy(run->model);
}

// ---- MuJoCo -----------------------------------------------------------------------------------------------

#ifdef SINEW_BENCH_MUJOCO

// Read a file whole (NUL-terminated); NULL on failure.
static char* read_file(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char* text = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (text != NULL && fread(text, 1, (size_t)n, f) != (size_t)n)
	{
		free(text);
		text = NULL;
	}
	fclose(f);
	if (text != NULL)
	{
		text[n] = '\0';
		*size = (size_t)n;
	}
	return text;
}

// Remove every <tag ...>...</tag> and <tag .../> element (they do not nest in URDF), in place.
static void strip_elements(char* text, const char* tag)
{
	char open[32], close[32];
	snprintf(open, sizeof(open), "<%s", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	size_t open_length = strlen(open);
	char* at = text;
	while ((at = strstr(at, open)) != NULL)
	{
		char next = at[open_length];
		if (next != ' ' && next != '>' && next != '/' && next != '\t' && next != '\n' && next != '\r')
		{
			at += open_length;
			continue;
		}
		char* end_of_tag = strchr(at, '>');
		if (end_of_tag == NULL)
		{
			return;
		}
		char* end;
		if (end_of_tag[-1] == '/')
		{
			end = end_of_tag + 1;
		}
		else
		{
			char* c = strstr(end_of_tag, close);
			if (c == NULL)
			{
				return;
			}
			end = c + strlen(close);
		}
		memmove(at, end, strlen(end) + 1);
	}
}

typedef struct mujoco_run
{
	mjModel* m;
	mjData* d;
	result r;
} mujoco_run;

static bool mujoco_open(mujoco_run* run, const char* path, const options* o)
{
	memset(run, 0, sizeof(*run));
	size_t size = 0;
	char* text = read_file(path, &size);
	if (text == NULL)
	{
		return false;
	}
	strip_elements(text, "visual");
	strip_elements(text, "collision");
	static const char compiler[] = "<mujoco><compiler balanceinertia=\"true\" discardvisual=\"true\" "
								   "boundmass=\"0.001\" boundinertia=\"4e-8\"/></mujoco>\n";
	char* robot = strstr(text, "<robot");
	char* after = robot != NULL ? strchr(robot, '>') : NULL;
	if (after == NULL)
	{
		free(text);
		return false;
	}
	after += 1;
	size_t head = (size_t)(after - text), total = strlen(text) + sizeof(compiler);
	mjVFS* vfs = malloc(sizeof(mjVFS));
	if (vfs == NULL)
	{
		free(text);
		return false;
	}
	mj_defaultVFS(vfs);
	if (mj_makeEmptyFileVFS(vfs, "robot.urdf", (int)total) != 0)
	{
		free(vfs);
		free(text);
		return false;
	}
	int index = mj_findFileVFS(vfs, "robot.urdf");
	char* data = vfs->filedata[index];
	memcpy(data, text, head);
	memcpy(data + head, compiler, sizeof(compiler) - 1);
	memcpy(data + head + sizeof(compiler) - 1, after, strlen(after) + 1);
	vfs->filesize[index] = (int)strlen(data);
	free(text);
	char error[1000] = "";
	run->m = mj_loadXML("robot.urdf", vfs, error, sizeof(error));
	mj_deleteVFS(vfs);
	free(vfs);
	if (run->m == NULL)
	{
		fprintf(stderr, "mujoco: %s: %s\n", path, error);
		return false;
	}
	run->m->opt.timestep = o->dt;
	run->m->opt.disableflags |= mjDSBL_CONTACT;
	run->d = mj_makeData(run->m);
	run->r.dofs = run->m->nv;
	run->r.links = run->m->nbody - 1;
	run->r.mimics = run->m->neq;
	run->r.ok = run->d != NULL;
	run->r.ns_per_step = INFINITY;
	return run->r.ok;
}

static void mujoco_steps(mujoco_run* run, int n, bool timed)
{
	double t0 = bench_now();
	for (int i = 0; i < n; ++i)
	{
		mj_step(run->m, run->d);
	}
	if (timed)
	{
		run->r.ns_per_step = fmin(run->r.ns_per_step, 1e9 * (bench_now() - t0) / n);
	}
}

static void mujoco_close(mujoco_run* run)
{
	for (int i = 0; run->d != NULL && i < run->m->nv; ++i)
	{
		run->r.ok = run->r.ok && isfinite(run->d->qvel[i]);
	}
	if (run->d != NULL)
	{
		mj_deleteData(run->d);
	}
	if (run->m != NULL)
	{
		mj_deleteModel(run->m);
	}
}

#endif

// ---- main -------------------------------------------------------------------------------------------------

static int compare_names(const void* a, const void* b)
{
	return strcmp(*(const char* const*)a, *(const char* const*)b);
}

int main(int argc, char** argv)
{
	options o = { SINEW_ROBOTS_DIR, { NULL }, 0, 2000, 5, 1e-4, false, false, false };
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
		{
			o.dir = argv[++i];
		}
		else if (strcmp(argv[i], "--robot") == 0 && i + 1 < argc && o.only_count < MAX_ROBOTS)
		{
			o.only[o.only_count++] = argv[++i];
		}
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
		{
			o.steps = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
		{
			o.repeat = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--dt") == 0 && i + 1 < argc)
		{
			o.dt = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--drives") == 0)
		{
			o.drives = true;
		}
		else if (strcmp(argv[i], "--sinew-only") == 0)
		{
			o.sinew_only = true;
		}
		else if (strcmp(argv[i], "--peer-only") == 0)
		{
			o.peer_only = true;
		}
		else
		{
			usage();
			return 2;
		}
	}
	if (o.steps < 1 || o.repeat < 1 || !(o.dt > 0.0))
	{
		usage();
		return 2;
	}
	// The robots: the named ones, or every URDF in the directory, in name order.
	char* names[MAX_ROBOTS];
	int count = 0;
	if (o.only_count > 0)
	{
		for (int i = 0; i < o.only_count; ++i)
		{
			names[count++] = strdup(o.only[i]);
		}
	}
	else
	{
		DIR* dir = opendir(o.dir);
		if (dir == NULL)
		{
			fprintf(stderr, "bench_robots: cannot open %s\n", o.dir);
			return 1;
		}
		struct dirent* e;
		while ((e = readdir(dir)) != NULL && count < MAX_ROBOTS)
		{
			size_t n = strlen(e->d_name);
			if (n > 5 && strcmp(e->d_name + n - 5, ".urdf") == 0)
			{
				names[count] = strdup(e->d_name);
				names[count][n - 5] = '\0';
				count++;
			}
		}
		closedir(dir);
		qsort(names, (size_t)count, sizeof(names[0]), compare_names);
	}
	printf("# published robots, free motion from the zero pose, dt = %g s, %d steps x %d repeats (fastest), "
		   "contacts off, one core%s\n",
		   o.dt, o.steps, o.repeat, o.drives ? ", PD drives on every joint (Sinew)" : "");
#ifdef SINEW_BENCH_MUJOCO
	printf("# MuJoCo %s in the same run\n", mj_versionString());
	printf("# %-20s %6s %6s %6s %12s | %6s %6s %12s | %8s\n", "robot", "dofs", "links", "mimic", "sinew ns", "nv",
		   "neq", "mujoco ns", "ratio");
#else
	printf("# MuJoCo not built (configure with -DSINEW_BENCH_PEERS=ON for the side-by-side figures)\n");
	printf("# %-20s %6s %6s %6s %12s\n", "robot", "dofs", "links", "mimic", "sinew ns");
#endif
	int failed = 0;
	for (int i = 0; i < count; ++i)
	{
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s.urdf", o.dir, names[i]);
		// Warm up both, then alternate their timed repeats, so that both meet the same load on a shared
		// machine.
		sinew_run sr;
		bool sinew_on = !o.peer_only && sinew_open(&sr, path, &o);
		if (sinew_on)
		{
			sinew_steps(&sr, 200, false);
		}
#ifdef SINEW_BENCH_MUJOCO
		mujoco_run mr;
		bool mujoco_on = !o.sinew_only && mujoco_open(&mr, path, &o);
		if (mujoco_on)
		{
			mujoco_steps(&mr, 200, false);
		}
#endif
		for (int k = 0; k < o.repeat; ++k)
		{
			if (sinew_on)
			{
				sinew_steps(&sr, o.steps, true);
			}
#ifdef SINEW_BENCH_MUJOCO
			if (mujoco_on)
			{
				mujoco_steps(&mr, o.steps, true);
			}
#endif
		}
		if (sinew_on)
		{
			sinew_count_second_passes(&sr, o.steps);
		}
		result s = sinew_on ? sr.r : (result){ 0 };
		if (!o.peer_only)
		{
			sinew_close(&sr);
		}
		failed += !s.ok && !o.peer_only;
#ifdef SINEW_BENCH_MUJOCO
		result m = (result){ 0 };
		if (!o.sinew_only)
		{
			mujoco_close(&mr);
			m = mr.r;
			m.ok = m.ok && mujoco_on;
		}
		double ratio = s.ok && m.ok ? s.ns_per_step / m.ns_per_step : NAN;
		printf("  %-20s %6d %6d %6d %12.0f | %6d %6d %12.0f | %8.3f\n", names[i], s.dofs, s.links, s.mimics,
			   s.ns_per_step, m.dofs, m.mimics, m.ns_per_step, ratio);
		printf("BENCH scene=robot robot=%s drives=%d dt_s=%g sinew_dofs=%d sinew_links=%d sinew_mimics=%d "
			   "sinew_ns_per_step=%.0f sinew_second_pass_share=%.3f mujoco_nv=%d mujoco_neq=%d mujoco_ns_per_step=%.0f "
			   "ratio=%.3f ok=%d\n",
			   names[i], o.drives, o.dt, s.dofs, s.links, s.mimics, s.ns_per_step, s.second_pass_share, m.dofs,
			   m.mimics, m.ns_per_step, ratio, s.ok && m.ok);
#else
		printf("  %-20s %6d %6d %6d %12.0f\n", names[i], s.dofs, s.links, s.mimics, s.ns_per_step);
		printf("BENCH scene=robot robot=%s drives=%d dt_s=%g sinew_dofs=%d sinew_links=%d sinew_mimics=%d "
			   "sinew_ns_per_step=%.0f sinew_second_pass_share=%.3f ok=%d\n",
			   names[i], o.drives, o.dt, s.dofs, s.links, s.mimics, s.ns_per_step, s.second_pass_share, s.ok);
#endif
		fflush(stdout);
		free(names[i]);
	}
	return failed > 0 ? 1 : 0;
}
