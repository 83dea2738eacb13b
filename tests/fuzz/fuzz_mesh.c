// libFuzzer target for the mesh readers: the first byte picks the format (STL, OBJ or DAE, by the name
// given to snm_read_mesh), the rest is the file. A mesh that reads must satisfy what the build and the
// dashboard rely on (counts within the limits, indices in range, finite positions, unit normals, parts
// covering the triangles); a failure must carry a typed asset error and a message. A mesh that reads is
// then made a hull and a triangle mesh in a world, as snm_build would. ASan and UBSan (SINEW_FUZZ) catch
// memory errors, leaks and undefined behaviour; libFuzzer's -timeout and -rss_limit_mb catch hangs and
// unbounded growth.
#include "sinew/model.h"
#include "sinew/sinew.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int condition)
{
	if (!condition)
	{
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size < 1)
	{
		return 0;
	}
	static const char* names[3] = { "fuzz.stl", "fuzz.obj", "fuzz.dae" };
	const char* name = names[data[0] % 3];
	// Smaller limits than the defaults so that the fuzzer reaches them.
	snm_mesh_limits limits = snm_default_mesh_limits();
	limits.max_file_bytes = 1 << 20;
	limits.max_triangles = 1 << 14;
	limits.max_xml_depth = 32;
	snm_mesh* mesh = NULL;
	snm_error error;
	sn_error err = snm_read_mesh(data + 1, size - 1, name, &limits, &mesh, &error);
	if (err != SN_ERR_OK)
	{
		check(mesh == NULL && error.code == err && error.text[0] != '\0' &&
			  memchr(error.text, '\0', sizeof(error.text)) != NULL);
		check(err == SN_ERR_NO_MEMORY || error.asset != SNM_ASSET_NONE);
		return 0;
	}
	check(mesh->triangle_count >= 1 && mesh->triangle_count <= limits.max_triangles);
	check(mesh->vertex_count >= 1 && mesh->vertex_count <= 3 * limits.max_triangles);
	check(mesh->hash == snm_fnv1a64(data + 1, size - 1));
	for (int i = 0; i < 3 * mesh->triangle_count; ++i)
	{
		check(mesh->indices[i] < (uint32_t)mesh->vertex_count);
	}
	for (int i = 0; i < 3 * mesh->vertex_count; ++i)
	{
		check(isfinite(mesh->positions[i]));
	}
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		const float* n = &mesh->normals[3 * i];
		double length = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
		check(fabs(length - 1.0) < 1e-3);
	}
	int covered = 0;
	for (int p = 0; p < mesh->part_count; ++p)
	{
		check(mesh->parts[p].first_triangle == covered && mesh->parts[p].triangle_count >= 1);
		covered += mesh->parts[p].triangle_count;
	}
	check(covered == mesh->triangle_count);

	// Into a world as the build makes them: a hull on a dynamic body and a triangle mesh on the world.
	// The core validates what the file holds (flat hulls, degenerate triangles, sizes): errors are fine,
	// crashes are not.
	sn_world_def wd = sn_default_world_def();
	sn_world* world = NULL;
	check(sn_world_create(&wd, &world) == SN_ERR_OK);
	sn_vec3* points = malloc((size_t)mesh->vertex_count * sizeof(sn_vec3));
	int32_t* indices = malloc((size_t)mesh->triangle_count * 3 * sizeof(int32_t));
	check(points != NULL && indices != NULL);
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		points[i] = sn_v3(mesh->positions[3 * i], mesh->positions[3 * i + 1], mesh->positions[3 * i + 2]);
	}
	for (int i = 0; i < 3 * mesh->triangle_count; ++i)
	{
		indices[i] = (int32_t)mesh->indices[i];
	}
	sn_body_def bd = sn_default_body_def();
	sn_body_id body;
	check(sn_create_body(world, &bd, &body) == SN_ERR_OK);
	sn_shape_def sd = sn_default_shape_def();
	sd.body = body;
	sd.geometry = sn_geometry_hull(points, mesh->vertex_count);
	sn_shape_id shape;
	(void)sn_create_shape(world, &sd, &shape);
	sd.body = (sn_body_id){ 0, 0 };
	sd.geometry = sn_geometry_mesh(points, mesh->vertex_count, indices, mesh->triangle_count);
	(void)sn_create_shape(world, &sd, &shape);
	for (int s = 0; s < 3; ++s)
	{
		(void)sn_world_step(world);
	}
	sn_world_destroy(world);
	free(points);
	free(indices);
	snm_mesh_destroy(mesh);
	return 0;
}
