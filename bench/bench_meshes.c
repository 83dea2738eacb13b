// Robots with their meshes (issue 14): every published robot description the importer can find, loaded
// with its mesh files, built with its collision geometry, and stepped on a ground plane with contacts.
// Per robot it prints one BENCH line:
//   load_ms        parse the URDF and read every mesh file (assimp), best of --repeat loads, ms
//   build_ms       build into a world: articulation, mimic rows and collision shapes (hulls), best of
//                  --repeat, ms
//   links          URDF links; shapes: collision shapes made; hull_vertices: their hulls' vertices
//   meshes         distinct mesh files read; triangles: theirs together
//   steps_per_s    world steps per second of the robot fixed above the origin on a ground plane (a plane
//                  shape of the world; the base raised so that its lowest shape touches the ground, its own
//                  pair with the ground excluded, as a base bolted to the floor), limp: its links fall,
//                  fold and rest on the ground, contacts acting (dt 1e-3 s, TGS,
//                  defaults otherwise), timed after --settle seconds, best of --repeat runs of --steps
//                  steps; points: contact points per timed step (speculative ones included), touching:
//                  touching manifolds per step
//   floating_steps_per_s  the robot as a floating base with every joint held at the file's pose by
//                  acceleration drives (40000 1/s^2, 400 1/s, effort-limited), dropped from 5 cm above the
//                  ground: it lands on its collision shapes (a quadruped on its feet, an arm on its side);
//                  timed the same way; floating_points, floating_touching as above; floating_lowest_m: its
//                  lowest shape point at the end (the ground is z = 0)
//   steps_per_s_no_ground  the fixed world's steps once the ground is removed (the collision shapes stay):
//                  what detecting and solving contacts with it costs is the difference
// Robots (source=shared, source=models): the URDFs under ../shared/robots (meshes resolved by package://
// through that folder as a model path), and those of models/robots (their mesh files are not shipped: read
// with missing_fallback, so only their primitive collision elements become shapes). --robot NAME keeps the
// files whose name starts with NAME.
//   bench_meshes [--shared DIR] [--models DIR] [--steps N] [--repeat R] [--settle S] [--robot NAME]...
#define _POSIX_C_SOURCE 200809L

#include "clock.h"
#include "sinew/model.h"
#include "sinew/sinew.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct options
{
	const char* shared;
	const char* models;
	int steps, repeat;
	double settle;
	const char* only[32];
	int only_count;
} options;

// One timed run: what it measured.
typedef struct run
{
	double steps_per_s;
	double points;   // contact points per step
	double touching; // touching manifolds per step
	double lowest;   // the robot's lowest shape point at the end, m
	bool failed;
} run;

static double lowest_point(const sn_world* world, const snm_build_result* built)
{
	double lowest = INFINITY;
	for (int i = 0; i < built->shape_count; ++i)
	{
		sn_vec3 lo, hi;
		if (sn_shape_get_bounds(world, built->shapes[i], &lo, &hi) == SN_ERR_OK)
		{
			lowest = fmin(lowest, lo.z);
		}
	}
	return lowest;
}

// Step `steps` steps and time them; counts contacts per step.
static run timed_steps(sn_world* world, const snm_build_result* built, int steps)
{
	run r = { 0 };
	double points = 0.0, touching = 0.0;
	double t0 = bench_now();
	for (int s = 0; s < steps; ++s)
	{
		if (sn_world_step(world) != SN_ERR_OK)
		{
			r.failed = true;
			break;
		}
		sn_collision_stats cs = sn_world_get_collision_stats(world);
		points += cs.points;
		touching += cs.touching;
	}
	double t1 = bench_now();
	r.steps_per_s = steps / (t1 - t0);
	r.points = points / steps;
	r.touching = touching / steps;
	r.lowest = lowest_point(world, built);
	return r;
}

static void step_for(sn_world* world, double seconds)
{
	int n = (int)(seconds / sn_world_get_time_step(world) + 0.5);
	for (int s = 0; s < n; ++s)
	{
		sn_world_step(world);
	}
}

// A world with the ground plane z = 0 (its shape id in *ground).
static sn_world* ground_world(sn_shape_id* ground)
{
	sn_world_def wd = sn_default_world_def();
	wd.time_step = 1e-3;
	sn_world* world = NULL;
	if (sn_world_create(&wd, &world) != SN_ERR_OK)
	{
		return NULL;
	}
	sn_shape_def g = sn_default_shape_def();
	g.geometry = sn_geometry_plane(sn_v3(0.0, 0.0, 1.0), 0.0);
	sn_create_shape(world, &g, ground);
	return world;
}

static snm_build_def build_def(bool floating)
{
	snm_build_def bd = snm_default_build_def();
	bd.balance_inertia = true;
	bd.massless_link_mass = 0.001;
	bd.base_mode = floating ? SNM_BASE_FLOATING : SNM_BASE_FIXED;
	if (floating)
	{
		bd.drive_all.drive = sn_default_drive();
		bd.drive_all.drive.enabled = true;
		bd.drive_all.drive.type = SN_DRIVE_ACCELERATION;
		bd.drive_all.drive.stiffness = 40000.0;
		bd.drive_all.drive.damping = 400.0;
		bd.drive_all.max_force_from_effort = true;
	}
	return bd;
}

static void bench_robot(const options* o, const char* path, const char* model_path, bool fallback, const char* source)
{
	const char* base_name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	char name[160];
	snprintf(name, sizeof(name), "%s/%s", source, base_name);
	if (o->only_count > 0)
	{
		bool wanted = false;
		for (int i = 0; i < o->only_count; ++i)
		{
			wanted = wanted || strncmp(base_name, o->only[i], strlen(o->only[i])) == 0;
		}
		if (!wanted)
		{
			return;
		}
	}
	snm_mesh_options mo = snm_default_mesh_options();
	mo.package_path = model_path;
	mo.missing_fallback = fallback;
	double load_best = 1e300, build_best = 1e300;
	run fixed_best = { 0 }, floating_best = { 0 };
	double free_best = 0.0;
	int links = 0, shapes = 0, hull_vertices = 0, meshes = 0;
	long triangles = 0;
	bool failed = false;
	for (int r = 0; r < o->repeat; ++r)
	{
		snm_model* model = NULL;
		snm_error error;
		double t0 = bench_now();
		if (snm_import_urdf_file(path, NULL, &mo, &model, &error) != SN_ERR_OK)
		{
			printf("%-34s load failed: %s\n", name, error.text);
			return;
		}
		double t1 = bench_now();
		load_best = fmin(load_best, t1 - t0);
		links = model->link_count;
		meshes = model->mesh_count;
		triangles = 0;
		for (int i = 0; i < model->mesh_count; ++i)
		{
			triangles += model->meshes[i]->triangle_count;
		}
		// Fixed at the origin, limp, on the ground.
		sn_shape_id ground_id;
		sn_world* world = ground_world(&ground_id);
		snm_build_def bd = build_def(false);
		snm_build_result built;
		double t2 = bench_now();
		if (world == NULL || snm_build(world, model, &bd, &built, &error) != SN_ERR_OK)
		{
			printf("%-34s build failed: %s\n", name, world == NULL ? "no world" : error.text);
			sn_world_destroy(world);
			snm_model_destroy(model);
			return;
		}
		double t3 = bench_now();
		build_best = fmin(build_best, t3 - t2);
		shapes = built.shape_count;
		hull_vertices = built.hull_vertex_count;
		sn_world_set_pair_collision(world, sn_articulation_get_link_body(world, built.articulation, 0),
									(sn_body_id){ 0 }, false);
		// Raised so that nothing starts below the ground (a quadruped's legs hang below its base).
		double lowest = lowest_point(world, &built);
		if (lowest < 0.0)
		{
			sn_transform base = sn_articulation_get_link_pose(world, built.articulation, 0);
			base.p.z -= lowest;
			sn_articulation_set_base_pose(world, built.articulation, base);
		}
		step_for(world, o->settle);
		run fixed = timed_steps(world, &built, o->steps);
		failed = failed || fixed.failed;
		fixed_best = fixed.steps_per_s > fixed_best.steps_per_s ? fixed : fixed_best;
		// The same steps without the ground: what collision detection and contacts with it cost.
		sn_destroy_shape(world, ground_id);
		run free_run = timed_steps(world, &built, o->steps);
		free_best = fmax(free_best, free_run.steps_per_s);
		snm_build_result_free(&built);
		sn_world_destroy(world);

		// Floating, held at its pose by drives, dropped from 5 cm onto the ground.
		world = ground_world(&ground_id);
		bd = build_def(true);
		if (world == NULL || snm_build(world, model, &bd, &built, &error) != SN_ERR_OK)
		{
			printf("%-34s floating build failed: %s\n", name, world == NULL ? "no world" : error.text);
			sn_world_destroy(world);
			snm_model_destroy(model);
			return;
		}
		sn_transform base = sn_articulation_get_link_pose(world, built.articulation, 0);
		base.p.z += 0.05 - lowest_point(world, &built);
		sn_articulation_set_base_pose(world, built.articulation, base);
		step_for(world, o->settle);
		run floating = timed_steps(world, &built, o->steps);
		failed = failed || floating.failed;
		floating_best = floating.steps_per_s > floating_best.steps_per_s ? floating : floating_best;
		snm_build_result_free(&built);
		sn_world_destroy(world);
		snm_model_destroy(model);
	}
	// A robot without shapes (its collisions are all meshes that are not shipped) has no lowest point.
	char lowest[32];
	snprintf(lowest, sizeof(lowest), isfinite(floating_best.lowest) ? "%.5f" : "none", floating_best.lowest);
	printf("%-34s %8.2f %8.2f %6d %6d %8d %6d %9ld %10.0f %7.1f %10.0f %7.1f %9s %10.0f%s\n", name, 1e3 * load_best,
		   1e3 * build_best, links, shapes, hull_vertices, meshes, triangles, fixed_best.steps_per_s, fixed_best.points,
		   floating_best.steps_per_s, floating_best.points, lowest, free_best, failed ? "  (a step failed)" : "");
	printf("BENCH bench=meshes robot=%s source=%s load_ms=%.3f build_ms=%.3f links=%d shapes=%d hull_vertices=%d "
		   "meshes=%d triangles=%ld steps_per_s=%.0f points=%.1f touching=%.1f floating_steps_per_s=%.0f "
		   "floating_points=%.1f floating_touching=%.1f floating_lowest_m=%s steps_per_s_no_ground=%.0f "
		   "step_failed=%d\n",
		   base_name, source, 1e3 * load_best, 1e3 * build_best, links, shapes, hull_vertices, meshes, triangles,
		   fixed_best.steps_per_s, fixed_best.points, fixed_best.touching, floating_best.steps_per_s,
		   floating_best.points, floating_best.touching, lowest, free_best, failed ? 1 : 0);
}

// URDFs directly in dir, or in dir/*/urdf (a shared description's layout), sorted by name.
static int compare(const void* a, const void* b)
{
	return strcmp(*(char* const*)a, *(char* const*)b);
}

static void collect(const char* dir, char** out, int* count, int capacity, int depth)
{
	DIR* d = opendir(dir);
	if (d == NULL)
	{
		return;
	}
	struct dirent* e;
	while ((e = readdir(d)) != NULL && *count < capacity)
	{
		if (e->d_name[0] == '.')
		{
			continue;
		}
		char path[2048];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t n = strlen(e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
		{
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth > 0)
		{
			collect(path, out, count, capacity, depth - 1);
		}
		else if (S_ISREG(st.st_mode) && n > 5 && strcmp(e->d_name + n - 5, ".urdf") == 0)
		{
			out[(*count)++] = strdup(path);
		}
	}
	closedir(d);
}

int main(int argc, char** argv)
{
	options o = { "../shared/robots", NULL, 1000, 3, 1.0, { NULL }, 0 };
#ifdef SINEW_ROBOTS_DIR
	o.models = SINEW_ROBOTS_DIR;
#endif
#ifdef SINEW_SHARED_ROBOTS_DIR
	o.shared = SINEW_SHARED_ROBOTS_DIR;
#endif
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--shared") == 0 && i + 1 < argc)
		{
			o.shared = argv[++i];
		}
		else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc)
		{
			o.models = argv[++i];
		}
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
		{
			o.steps = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
		{
			o.repeat = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--settle") == 0 && i + 1 < argc)
		{
			o.settle = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--robot") == 0 && i + 1 < argc && o.only_count < 32)
		{
			o.only[o.only_count++] = argv[++i];
		}
		else
		{
			fprintf(stderr,
					"usage: bench_meshes [--shared DIR] [--models DIR] [--steps N] [--repeat R] [--settle S] "
					"[--robot NAME]...\n");
			return 2;
		}
	}
	if (o.steps < 1 || o.repeat < 1 || !(o.settle >= 0.0 && o.settle <= 60.0))
	{
		fprintf(stderr, "bench_meshes: --steps and --repeat must be >= 1, --settle in [0, 60] s\n");
		return 2;
	}
	printf("%-34s %8s %8s %6s %6s %8s %6s %9s %10s %7s %10s %7s %9s %10s\n", "robot", "load_ms", "build_ms", "links",
		   "shapes", "hull_v", "meshes", "triangles", "steps/s", "points", "floating", "points", "lowest_m",
		   "no ground");
	char* paths[256];
	int count = 0;
	collect(o.shared, paths, &count, 256, 5);
	qsort(paths, (size_t)count, sizeof(char*), compare);
	if (count == 0)
	{
		printf("bench_meshes: no robots under %s (the shared descriptions are beside the repository)\n", o.shared);
	}
	for (int i = 0; i < count; ++i)
	{
		bench_robot(&o, paths[i], o.shared, false, "shared");
		free(paths[i]);
	}
	count = 0;
	if (o.models != NULL)
	{
		collect(o.models, paths, &count, 256, 0);
		qsort(paths, (size_t)count, sizeof(char*), compare);
	}
	for (int i = 0; i < count; ++i)
	{
		bench_robot(&o, paths[i], NULL, true, "models");
		free(paths[i]);
	}
	return 0;
}
