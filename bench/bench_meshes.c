// Robots with their meshes (issue 14): every published robot description the importer can find, loaded
// with its mesh files, built with its collision geometry, and stepped on a ground plane. Per robot it
// prints one BENCH line:
//   load_ms        parse the URDF and read every mesh file (assimp), best of --repeat loads, ms
//   build_ms       build into a world: articulation, mimic rows and collision shapes (hulls), best of
//                  --repeat, ms
//   links          URDF links; shapes: collision shapes made; hull_vertices: their hulls' vertices
//   meshes         distinct mesh files read; triangles: theirs together
//   steps_per_s    world steps per second with the robot standing on a ground plane (a plane shape of
//                  the world under the base, base fixed at z = 0, dt 1e-3 s, defaults otherwise), best of
//                  --repeat runs of --steps steps. The contact pairs between links and the ground are
//                  made and their contacts computed each step; the core does not yet apply contact forces
//                  to articulation links (articulation.h), so the figure is collision detection plus the
//                  articulation, not the contact solve of a standing robot.
//   steps_per_s_no_ground  the same world's steps once the ground is removed (the collision shapes stay):
//                  the difference is what detecting contacts with the ground costs.
// Robots: the URDFs under ../shared/robots (meshes resolved by package:// through that folder as a model
// path), and those of models/robots (their mesh files are not shipped: read with missing_fallback, so
// only their primitive collision elements become shapes).
//   bench_meshes [--shared DIR] [--models DIR] [--steps N] [--repeat R]
#define _POSIX_C_SOURCE 200809L

#include "clock.h"
#include "sinew/model.h"
#include "sinew/sinew.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct options
{
	const char* shared;
	const char* models;
	int steps, repeat;
} options;

static void bench_robot(const options* o, const char* path, const char* model_path, bool fallback)
{
	snm_mesh_options mo = snm_default_mesh_options();
	mo.package_path = model_path;
	mo.missing_fallback = fallback;
	double load_best = 1e300, build_best = 1e300, steps_best = 0.0, free_best = 0.0;
	int links = 0, shapes = 0, hull_vertices = 0, meshes = 0;
	long triangles = 0;
	for (int r = 0; r < o->repeat; ++r)
	{
		snm_model* model = NULL;
		snm_error error;
		double t0 = bench_now();
		if (snm_import_urdf_file(path, NULL, &mo, &model, &error) != SN_ERR_OK)
		{
			printf("%-40s load failed: %s\n", path, error.text);
			return;
		}
		double t1 = bench_now();
		load_best = t1 - t0 < load_best ? t1 - t0 : load_best;
		links = model->link_count;
		meshes = model->mesh_count;
		triangles = 0;
		for (int i = 0; i < model->mesh_count; ++i)
		{
			triangles += model->meshes[i]->triangle_count;
		}
		sn_world_def wd = sn_default_world_def();
		wd.time_step = 1e-3;
		sn_world* world = NULL;
		if (sn_world_create(&wd, &world) != SN_ERR_OK)
		{
			snm_model_destroy(model);
			return;
		}
		sn_shape_def ground = sn_default_shape_def();
		ground.geometry = sn_geometry_plane(sn_v3(0.0, 0.0, 1.0), 0.0);
		sn_shape_id ground_id;
		sn_create_shape(world, &ground, &ground_id);
		snm_build_def bd = snm_default_build_def();
		bd.balance_inertia = true;
		bd.massless_link_mass = 0.001;
		bd.base_mode = SNM_BASE_FIXED;
		snm_build_result built;
		double t2 = bench_now();
		if (snm_build(world, model, &bd, &built, &error) != SN_ERR_OK)
		{
			printf("%-40s build failed: %s\n", path, error.text);
			sn_world_destroy(world);
			snm_model_destroy(model);
			return;
		}
		double t3 = bench_now();
		build_best = t3 - t2 < build_best ? t3 - t2 : build_best;
		shapes = built.shape_count;
		hull_vertices = built.hull_vertex_count;
		for (int s = 0; s < 20; ++s)
		{
			sn_world_step(world);
		}
		double t4 = bench_now();
		for (int s = 0; s < o->steps; ++s)
		{
			sn_world_step(world);
		}
		double t5 = bench_now();
		double rate = o->steps / (t5 - t4);
		steps_best = rate > steps_best ? rate : steps_best;
		// The same steps without the ground: what collision detection against it costs.
		sn_destroy_shape(world, ground_id);
		double t6 = bench_now();
		for (int s = 0; s < o->steps; ++s)
		{
			sn_world_step(world);
		}
		double t7 = bench_now();
		double free_rate = o->steps / (t7 - t6);
		free_best = free_rate > free_best ? free_rate : free_best;
		snm_build_result_free(&built);
		sn_world_destroy(world);
		snm_model_destroy(model);
	}
	const char* name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	printf("%-28s %8.2f %8.2f %6d %6d %8d %6d %9ld %10.0f %10.0f\n", name, 1e3 * load_best, 1e3 * build_best, links,
		   shapes, hull_vertices, meshes, triangles, steps_best, free_best);
	printf("BENCH bench=meshes robot=%s load_ms=%.3f build_ms=%.3f links=%d shapes=%d hull_vertices=%d meshes=%d "
		   "triangles=%ld steps_per_s=%.0f steps_per_s_no_ground=%.0f link_contact_forces=no\n",
		   name, 1e3 * load_best, 1e3 * build_best, links, shapes, hull_vertices, meshes, triangles, steps_best,
		   free_best);
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
	options o = { "../shared/robots", NULL, 1000, 3 };
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
		else
		{
			fprintf(stderr, "usage: bench_meshes [--shared DIR] [--models DIR] [--steps N] [--repeat R]\n");
			return 2;
		}
	}
	if (o.steps < 1 || o.repeat < 1)
	{
		fprintf(stderr, "bench_meshes: --steps and --repeat must be >= 1\n");
		return 2;
	}
	printf("%-28s %8s %8s %6s %6s %8s %6s %9s %10s %10s\n", "robot", "load_ms", "build_ms", "links", "shapes", "hull_v",
		   "meshes", "triangles", "steps/s", "no ground");
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
		bench_robot(&o, paths[i], o.shared, false);
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
		bench_robot(&o, paths[i], NULL, true);
		free(paths[i]);
	}
	return 0;
}
