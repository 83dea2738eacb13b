// Robot models: LoadUrdf reads URDF text (or a URDF on the server's model path) with the importer
// (core/model), reads the mesh files it names (sent with the load or kept from an earlier one, by SHA-256;
// package:// ones from the model path too), builds it into the world as one articulation with its mimic
// joints and collision shapes, and answers with where every URDF link, joint and visual went
// (model_info.c); the world keeps that answer for DescribeWorld, which tells a client that joins later
// what the world's articulations are made of, and the meshes of its visuals go to the asset store, served
// by hash.
//
// Reading mesh files (assimp) and building hulls take up to seconds for a detailed robot, so a load runs as
// a world job on a worker (world_host.h): the world is busy, its commands wait in order, and the event
// loop stays free. The importer validates the text and the files (its errors carry file, line, element
// and what, and become the status message); the core validates what the importer builds. Nothing is
// created on failure.
#include "command.h"
#include "convert.h"
#include "errors.h"
#include "frame.h"
#include "model_info.h"
#include "outbox.h"
#include "server.h"
#include "shapes.h"
#include "wire.h"

#include "sinew/model.h"

#include <pb_encode.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One file a load reads: its URI as the URDF writes it and its bytes (a reference into the asset store, or
// the bytes sent with the load, hashed on the worker).
typedef struct load_asset
{
	char* uri;
	asset_blob* blob;
	bool sent; // came with the load: checked against claim and kept in the store afterwards
	bool has_claim;
	uint8_t claim[WIRE_HASH_SIZE];
} load_asset;

typedef struct load_job
{
	world_job base; // first: the host's job
	uint64_t session_id;
	uint64_t request_id;
	// What to load.
	uint8_t* urdf; // owned text (NULL for a model on the model path)
	size_t urdf_size;
	char file_name[128];
	char model_name[600]; // package://NAME/PATH or NAME/PATH on the model path, or ""
	bool missing_ok;
	bool has_base_pose;
	sinew_v1_Transform base_pose;
	sinew_v1_BaseMode base_mode;
	bool has_drive_all;
	sinew_v1_Drive drive_all;
	sinew_v1_JointDrive* drives; // owned
	int drive_count;
	sinew_v1_JointValue* initial; // owned
	int initial_count;
	load_asset* assets;
	int asset_count;
	server_limits limits;
	char model_path[4096];
	// What came of it.
	int32_t code;
	char detail[768];
	snm_model* model;
	snm_build_result built;
	bool built_ok;
	int dofs;
	asset_blob** mesh_blobs;   // per model->meshes: the meshes of visuals, hashed
	asset_blob** shape_meshes; // per built shape: a world triangle mesh's mesh, or NULL
} load_job;

static int32_t job_fail(load_job* job, int32_t code, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int32_t job_fail(load_job* job, int32_t code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(job->detail, sizeof(job->detail), format, args);
	va_end(args);
	job->code = code;
	return code;
}

static void free_job(load_job* job)
{
	free(job->urdf);
	free(job->drives);
	free(job->initial);
	for (int i = 0; i < job->asset_count; ++i)
	{
		free(job->assets[i].uri);
		asset_blob_unref(job->assets[i].blob);
	}
	free(job->assets);
	for (int i = 0; job->mesh_blobs != NULL && job->model != NULL && i < job->model->mesh_count; ++i)
	{
		asset_blob_unref(job->mesh_blobs[i]);
	}
	free(job->mesh_blobs);
	for (int i = 0; job->shape_meshes != NULL && i < job->built.shape_count; ++i)
	{
		asset_blob_unref(job->shape_meshes[i]);
	}
	free(job->shape_meshes);
	snm_build_result_free(&job->built);
	snm_model_destroy(job->model);
	free(job);
}

static snm_drive_gains drive_gains(const char* joint, const sinew_v1_Drive* in)
{
	snm_drive_gains g;
	g.joint = joint;
	g.drive = sn_default_drive();
	g.drive.enabled = in->enabled;
	// An unknown wire value becomes a type the importer rejects (INVALID_ARGUMENT).
	g.drive.type = in->type == sinew_v1_DriveType_DRIVE_ACCELERATION ? SN_DRIVE_ACCELERATION
		: in->type == sinew_v1_DriveType_DRIVE_FORCE                 ? SN_DRIVE_FORCE
																	 : (sn_drive_type)(100 + (int)in->type);
	g.drive.stiffness = in->stiffness;
	g.drive.damping = in->damping;
	g.drive.target_position = in->target_position;
	g.drive.target_velocity = in->target_velocity;
	g.max_force_from_effort = !in->has_max_force;
	if (in->has_max_force)
	{
		g.drive.max_force = in->max_force;
	}
	return g;
}

// ---- where a load's files come from -------------------------------------------------------------------

// The filesystem options for the model path: package:// in its folders, nothing else of the environment.
static snm_mesh_options model_path_options(const load_job* job)
{
	snm_mesh_options o = snm_default_mesh_options();
	o.package_path = job->model_path;
	o.use_env_path = false;
	o.confine_paths = false;
	return o;
}

// Collapse "." and ".." segments of an absolute path in place (lexically). False if ".." climbs above "/".
static bool normalise(char* path)
{
	char* out = path;
	const char* in = path;
	while (*in != '\0')
	{
		while (*in == '/')
		{
			++in;
		}
		const char* end = strchr(in, '/');
		size_t n = end != NULL ? (size_t)(end - in) : strlen(in);
		if (n == 0 || (n == 1 && in[0] == '.'))
		{
		}
		else if (n == 2 && in[0] == '.' && in[1] == '.')
		{
			if (out == path)
			{
				return false;
			}
			while (out > path && *--out != '/')
			{
			}
		}
		else
		{
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == path)
	{
		*out++ = '/';
	}
	*out = '\0';
	return true;
}

// Whether a normalised absolute path lies inside one of the model path's folders (lexically).
static bool inside_model_path(const load_job* job, const char* path)
{
	const char* s = job->model_path;
	while (*s != '\0')
	{
		const char* colon = strchr(s, ':');
		size_t n = colon != NULL ? (size_t)(colon - s) : strlen(s);
		char folder[1024];
		if (n > 0 && n < sizeof(folder) && s[0] == '/')
		{
			memcpy(folder, s, n);
			folder[n] = '\0';
			if (normalise(folder))
			{
				size_t k = strlen(folder);
				if (strcmp(folder, "/") == 0 || (strncmp(path, folder, k) == 0 && path[k] == '/'))
				{
					return true;
				}
			}
		}
		s += n;
		if (*s == ':')
		{
			++s;
		}
	}
	return false;
}

// What a load's resolvers see.
typedef struct resolve_context
{
	const load_job* job;
	char base_dir[1024]; // a model-path URDF's folder ("" for a client's URDF)
} resolve_context;

static void note(char* looked, size_t cap, const char* text)
{
	size_t used = strlen(looked);
	snprintf(looked + used, cap - used, "%s%s", used > 0 ? "; " : "", text);
}

// A package:// URI on the model path (both kinds of load).
static sn_error resolve_package(const load_job* job, const char* uri, size_t max_bytes, snm_asset* asset, char* looked,
								size_t cap)
{
	if (job->model_path[0] == '\0')
	{
		note(looked, cap, "the server's model path (none: --model-path)");
		return SN_ERR_INVALID_ARGUMENT;
	}
	snm_mesh_options o = model_path_options(job);
	return snm_resolve_file(&o, uri, max_bytes, asset, looked, cap);
}

// A client's URDF: the files sent with the load (by URI as written), then package:// on the model path.
// Nothing else of the server's disk.
static sn_error resolve_client(void* user, const char* uri, size_t max_bytes, snm_asset* asset, char* looked,
							   size_t cap)
{
	const resolve_context* r = user;
	const load_job* job = r->job;
	for (int i = 0; i < job->asset_count; ++i)
	{
		if (strcmp(job->assets[i].uri, uri) == 0)
		{
			const asset_blob* b = job->assets[i].blob;
			if (b->size > max_bytes)
			{
				return SN_ERR_CAPACITY;
			}
			asset->data = b->data;
			asset->size = b->size;
			snprintf(asset->source, sizeof(asset->source), "(sent) %.480s", uri);
			return SN_ERR_OK;
		}
	}
	char sent[96];
	snprintf(sent, sizeof(sent), "the %d files sent with the load", job->asset_count);
	note(looked, cap, sent);
	if (strncmp(uri, "package://", 10) == 0)
	{
		return resolve_package(job, uri, max_bytes, asset, looked, cap);
	}
	note(looked, cap, "not on the server's disk (a URDF a client sends reads only package:// there)");
	return SN_ERR_INVALID_ARGUMENT;
}

// A URDF on the model path: its package:// URIs and its paths relative to it, all inside the model path.
static sn_error resolve_model(void* user, const char* uri, size_t max_bytes, snm_asset* asset, char* looked, size_t cap)
{
	const resolve_context* r = user;
	if (strncmp(uri, "package://", 10) == 0)
	{
		return resolve_package(r->job, uri, max_bytes, asset, looked, cap);
	}
	if (strstr(uri, "://") != NULL || uri[0] == '/')
	{
		note(looked, cap,
			 "nowhere: a model on the model path reads files of the model path only (not file:// or an "
			 "absolute path)");
		return SN_ERR_INVALID_ARGUMENT;
	}
	char path[1600];
	if (snprintf(path, sizeof(path), "%s/%s", r->base_dir, uri) >= (int)sizeof(path) || !normalise(path) ||
		!inside_model_path(r->job, path))
	{
		note(looked, cap, "nowhere: the path leaves the model path");
		return SN_ERR_INVALID_ARGUMENT;
	}
	snm_mesh_options o = model_path_options(r->job);
	return snm_resolve_file(&o, path, max_bytes, asset, looked, cap);
}

// ---- on the worker ------------------------------------------------------------------------------------

// Read the URDF of a model on the model path: "package://NAME/PATH" or "NAME/PATH".
static sn_error read_model_urdf(load_job* job, resolve_context* r, snm_model** model, snm_error* error)
{
	if (job->model_path[0] == '\0')
	{
		job_fail(job, SN_ERR_INVALID_ARGUMENT,
				 "load urdf: model \"%.200s\": this server has no model path (--model-path)", job->model_name);
		return SN_ERR_INVALID_ARGUMENT;
	}
	char uri[sizeof(job->model_name) + 16];
	if (strncmp(job->model_name, "package://", 10) == 0)
	{
		snprintf(uri, sizeof(uri), "%s", job->model_name);
	}
	else if (strstr(job->model_name, "://") != NULL || job->model_name[0] == '/')
	{
		job_fail(job, SN_ERR_INVALID_ARGUMENT,
				 "load urdf: model \"%.200s\": name a model as package://NAME/PATH or NAME/PATH on the model path",
				 job->model_name);
		return SN_ERR_INVALID_ARGUMENT;
	}
	else
	{
		snprintf(uri, sizeof(uri), "package://%s", job->model_name);
	}
	snm_asset asset;
	char looked[640] = "";
	sn_error err = resolve_package(job, uri, snm_default_limits().max_bytes, &asset, looked, sizeof(looked));
	if (err != SN_ERR_OK)
	{
		job_fail(job, err == SN_ERR_CAPACITY ? SN_ERR_CAPACITY : SN_ERR_INVALID_ARGUMENT,
				 "load urdf: model \"%.200s\" %s; looked in: %.400s", job->model_name,
				 err == SN_ERR_CAPACITY ? "is larger than 8 MiB" : "not found", looked);
		return job->code;
	}
	// Its own relative paths start from its folder.
	const char* slash = strrchr(asset.source, '/');
	size_t n = slash != NULL ? (size_t)(slash - asset.source) : 0;
	if (n >= sizeof(r->base_dir))
	{
		n = 0;
	}
	memcpy(r->base_dir, asset.source, n);
	r->base_dir[n] = '\0';
	err = snm_parse_urdf((const char*)asset.data, asset.size, job->model_name, NULL, model, error);
	if (asset.release != NULL)
	{
		asset.release(asset.release_context, asset.data);
	}
	return err;
}

// The meshes of the model's visuals in the mesh format, and of the world's triangle-mesh shapes it made.
static bool make_meshes(load_job* job, sn_world* world)
{
	snm_model* m = job->model;
	job->mesh_blobs = calloc((size_t)(m->mesh_count + 1), sizeof(asset_blob*));
	job->shape_meshes = calloc((size_t)(job->built.shape_count + 1), sizeof(asset_blob*));
	if (job->mesh_blobs == NULL || job->shape_meshes == NULL)
	{
		return false;
	}
	for (int i = 0; i < m->visual_count; ++i)
	{
		int k = m->visuals[i].mesh_index;
		if (m->visuals[i].type == SNM_GEOMETRY_MESH && k >= 0 && k < m->mesh_count && job->mesh_blobs[k] == NULL)
		{
			job->mesh_blobs[k] = model_info_mesh_blob(m->meshes[k]);
			if (job->mesh_blobs[k] == NULL)
			{
				return false;
			}
		}
	}
	for (int i = 0; i < job->built.shape_count; ++i)
	{
		if (sn_shape_get_type(world, job->built.shapes[i]) == SN_SHAPE_MESH)
		{
			job->shape_meshes[i] = shapes_mesh_blob(world, job->built.shapes[i]);
			if (job->shape_meshes[i] == NULL)
			{
				return false;
			}
		}
	}
	return true;
}

static bool model_has_meshes(const snm_model* m)
{
	for (int i = 0; i < m->visual_count; ++i)
	{
		if (m->visuals[i].type == SNM_GEOMETRY_MESH)
		{
			return true;
		}
	}
	for (int i = 0; i < m->collision_count; ++i)
	{
		if (m->collisions[i].type == SNM_GEOMETRY_MESH)
		{
			return true;
		}
	}
	return false;
}

static void load_run(world_job* base)
{
	load_job* job = (load_job*)base;
	world_host* host = base->host;
	sn_world* world = host->world;
	const server_limits* l = &job->limits;
	// The files sent with the load: their hashes, checked against what the client said they were.
	size_t total = 0;
	for (int i = 0; i < job->asset_count; ++i)
	{
		load_asset* a = job->assets + i;
		total += a->blob->size;
		if (a->sent && !asset_blob_hash(a->blob))
		{
			job_fail(job, SV_ERR_INTERNAL, "load urdf: asset \"%.200s\" could not be hashed", a->uri);
			return;
		}
		if (a->sent && a->has_claim && memcmp(a->claim, a->blob->hash, WIRE_HASH_SIZE) != 0)
		{
			char got[WIRE_HASH_HEX + 1];
			wire_hash_hex(a->blob->hash, got);
			job_fail(job, SN_ERR_INVALID_ARGUMENT, "load urdf: asset \"%.200s\": sha256 is not its data's (%s)", a->uri,
					 got);
			return;
		}
	}
	if ((int64_t)total > l->max_asset_bytes_per_load)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED,
				 "load urdf: the assets have %zu bytes, more than max_asset_bytes_per_load (%lld)", total,
				 (long long)l->max_asset_bytes_per_load);
		return;
	}
	// The URDF.
	snm_error error;
	resolve_context r;
	memset(&r, 0, sizeof(r));
	r.job = job;
	sn_error err = job->model_name[0] != '\0'
		? read_model_urdf(job, &r, &job->model, &error)
		: snm_parse_urdf((const char*)job->urdf, job->urdf_size, job->file_name[0] != '\0' ? job->file_name : "<urdf>",
						 NULL, &job->model, &error);
	if (err != SN_ERR_OK)
	{
		if (job->code == 0)
		{
			job_fail(job, err, "%s", error.text);
		}
		return;
	}
	// The same limits as CreateArticulation (counted on the URDF's links: merging can only lower the count).
	int64_t max_links = l->max_links_per_articulation < FRAME_MAX_ARTICULATION_LINKS ? l->max_links_per_articulation
																					 : FRAME_MAX_ARTICULATION_LINKS;
	if (job->model->link_count > max_links)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED,
				 "load urdf: %d links, more than max_links_per_articulation (%lld) or what a state frame carries (%d)",
				 job->model->link_count, (long long)l->max_links_per_articulation, FRAME_MAX_ARTICULATION_LINKS);
		return;
	}
	// The host's cached counts do not change while it is busy.
	int64_t used = (int64_t)sn_world_get_body_count(world) + host->cached.articulation_links;
	if (used + job->model->link_count > l->max_bodies_per_world)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED, "max_bodies_per_world (%lld) reached (links count as bodies)",
				 (long long)l->max_bodies_per_world);
		return;
	}
	int64_t mimics = sn_world_get_mimic_joints(world, NULL, 0);
	for (int i = 0; i < job->model->joint_count; ++i)
	{
		mimics += job->model->joints[i].has_mimic ? 1 : 0;
	}
	if (mimics > l->max_mimic_joints_per_world)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED,
				 "load urdf: the world would have %lld mimic joints: max_mimic_joints_per_world is %lld",
				 (long long)mimics, (long long)l->max_mimic_joints_per_world);
		return;
	}
	int64_t shapes = (int64_t)job->model->collision_count + sn_world_get_shape_count(world);
	if (shapes > l->max_shapes_per_world)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED,
				 "load urdf: %d collisions, and the world has %d shapes: more than max_shapes_per_world (%lld)",
				 job->model->collision_count, sn_world_get_shape_count(world), (long long)l->max_shapes_per_world);
		return;
	}
	// Its mesh files.
	if (model_has_meshes(job->model))
	{
		snm_mesh_options o = snm_default_mesh_options();
		o.read_files = false;
		o.use_env_path = false;
		o.resolve = job->model_name[0] != '\0' ? resolve_model : resolve_client;
		o.resolve_user = &r;
		o.missing_fallback = job->missing_ok;
		o.limits.max_file_bytes = (size_t)(l->max_asset_bytes < INT32_MAX ? l->max_asset_bytes : INT32_MAX);
		o.limits.max_model_bytes = (size_t)l->max_asset_bytes_per_load;
		err = snm_model_load_meshes(job->model, &o, &error);
		if (err != SN_ERR_OK)
		{
			job_fail(job, err, "%s", error.text);
			return;
		}
	}
	// Into the world.
	snm_drive_gains* drives = malloc((size_t)(job->drive_count + 1) * sizeof(snm_drive_gains));
	snm_joint_value* initial = malloc((size_t)(job->initial_count + 1) * sizeof(snm_joint_value));
	if (drives == NULL || initial == NULL)
	{
		free(drives);
		free(initial);
		job_fail(job, SN_ERR_NO_MEMORY, "out of memory");
		return;
	}
	for (int i = 0; i < job->drive_count; ++i)
	{
		drives[i] = drive_gains(job->drives[i].joint, &job->drives[i].drive);
	}
	for (int i = 0; i < job->initial_count; ++i)
	{
		initial[i].joint = job->initial[i].joint;
		initial[i].value = job->initial[i].value;
	}
	snm_build_def def = snm_default_build_def();
	def.articulation.base_pose = cv_transform(job->has_base_pose, &job->base_pose);
	def.base_mode = job->base_mode == sinew_v1_BaseMode_BASE_FIXED ? SNM_BASE_FIXED
		: job->base_mode == sinew_v1_BaseMode_BASE_FLOATING        ? SNM_BASE_FLOATING
		: job->base_mode == sinew_v1_BaseMode_BASE_AUTO            ? SNM_BASE_AUTO
																   : (snm_base_mode)(100 + (int)job->base_mode);
	if (job->has_drive_all)
	{
		def.drive_all = drive_gains(NULL, &job->drive_all);
	}
	def.drives = drives;
	def.drive_count = job->drive_count;
	def.initial = initial;
	def.initial_count = job->initial_count;
	// The world's own collision meshes (a massless root above a floating base) count in
	// max_mesh_triangles_per_world like CreateShape's, before the build makes any.
	const int64_t triangles = shapes_world_mesh_triangles(world);
	def.max_world_mesh_triangles = l->max_mesh_triangles_per_world -
		(triangles < l->max_mesh_triangles_per_world ? triangles : l->max_mesh_triangles_per_world);
	err = snm_build(world, job->model, &def, &job->built, &error);
	free(drives);
	free(initial);
	if (err == SN_ERR_CAPACITY && error.asset == SNM_ASSET_TOO_MANY_TRIANGLES)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED,
				 "load urdf: %s (max_mesh_triangles_per_world %lld; the world's meshes have %lld)", error.text,
				 (long long)l->max_mesh_triangles_per_world, (long long)triangles);
		return;
	}
	if (err != SN_ERR_OK)
	{
		job_fail(job, err, "%s", error.text);
		return;
	}
	job->built_ok = true;
	job->dofs = sn_articulation_get_dof_count(world, job->built.articulation);
	if (job->dofs > FRAME_MAX_ARTICULATION_DOFS)
	{
		job_fail(job, SV_ERR_LIMIT_REACHED, "load urdf: %d dofs; a state frame carries at most %d", job->dofs,
				 FRAME_MAX_ARTICULATION_DOFS);
		return;
	}
	if (!make_meshes(job, world))
	{
		job_fail(job, SN_ERR_NO_MEMORY, "load urdf: out of memory for its meshes");
	}
}

// ---- back on the loop ---------------------------------------------------------------------------------

// Keep the load's meshes in the store and its description in the world. 0, or the error with detail.
static int32_t keep_results(load_job* job, world_host* host)
{
	server* srv = host->srv;
	char why[256];
	// Files sent with the load stay for the next load of the same robot (best effort: dropped first).
	for (int i = 0; i < job->asset_count; ++i)
	{
		if (job->assets[i].sent)
		{
			asset_store_put(&srv->assets, job->assets[i].blob, why, sizeof(why));
		}
	}
	for (int i = 0; i < job->model->mesh_count; ++i)
	{
		asset_blob* mine = job->mesh_blobs[i];
		if (mine == NULL)
		{
			continue;
		}
		asset_blob* stored = asset_store_put(&srv->assets, mine, why, sizeof(why));
		if (stored == NULL)
		{
			return job_fail(job, SV_ERR_LIMIT_REACHED, "load urdf: its meshes do not fit: %s", why);
		}
		// The same content may have been there already: use the stored one.
		asset_blob_ref(stored);
		asset_blob_unref(mine);
		job->mesh_blobs[i] = stored;
	}
	model_info info = { job->model, &job->built, job->mesh_blobs };
	if (!model_info_keep(&host->models, &info, job->built.articulation, job->dofs))
	{
		return job_fail(job, SN_ERR_NO_MEMORY, "out of memory");
	}
	for (int i = 0; i < job->built.shape_count; ++i)
	{
		if (job->shape_meshes[i] == NULL)
		{
			continue;
		}
		asset_blob* stored = asset_store_put(&srv->assets, job->shape_meshes[i], why, sizeof(why));
		uint8_t* hash = stored != NULL ? malloc(WIRE_HASH_SIZE) : NULL;
		if (hash != NULL)
		{
			memcpy(hash, stored->hash, WIRE_HASH_SIZE);
			if (!model_registry_keep(&host->models, MODEL_SHAPE_MESH, sn_shape_id_store(job->built.shapes[i]), hash,
									 WIRE_HASH_SIZE, &stored, 1))
			{
				free(hash); // described without its mesh until DescribeWorld makes it again
			}
		}
	}
	return 0;
}

static void load_done(world_job* base)
{
	load_job* job = (load_job*)base;
	world_host* host = base->host;
	server* srv = host->srv;
	if (job->code == 0 && host->doomed)
	{
		job_fail(job, SV_ERR_UNKNOWN_WORLD, "load urdf: world %llu was destroyed while the model loaded",
				 (unsigned long long)host->id);
	}
	if (job->code == 0)
	{
		keep_results(job, host);
	}
	if (job->code != 0 && job->built_ok && !host->doomed)
	{
		// Built, then refused (dofs, the asset store): the world as it was, its own shapes included.
		snm_build_undo(host->world, &job->built);
		model_registry_prune(&host->models, host->world);
	}
	int index = command_index(sinew_v1_ClientMessage_load_urdf_tag);
	metrics_count_command(&srv->metrics, index, job->code);
	if (job->code != 0)
	{
		session_reply_to(srv, job->session_id, job->request_id, job->code, job->detail, NULL);
	}
	else
	{
		sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
		reply.which_result = sinew_v1_Reply_urdf_tag;
		model_info info = { job->model, &job->built, job->mesh_blobs };
		model_info_fill(&reply.result.urdf, &info, job->built.articulation, job->dofs);
		session_reply_to(srv, job->session_id, job->request_id, 0, NULL, &reply);
	}
	free_job(job);
}

// ---- the handler --------------------------------------------------------------------------------------

int32_t handle_load_urdf(command_ctx* ctx)
{
	const sinew_v1_LoadUrdf* c = &ctx->msg.command.load_urdf;
	const server_limits* l = &ctx->srv->config.limits;
	if (ctx->urdf_over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "load urdf: more than %d drives or initial values",
						COMMAND_URDF_MAX_ENTRIES);
	}
	if (ctx->assets_over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "load urdf: more than max_assets_per_load (%lld) assets",
						(long long)l->max_assets_per_load);
	}
	if (ctx->bytes_size == 0 && c->model[0] == '\0')
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "load urdf: the urdf text is empty (and no model is named)");
	}
	if (ctx->bytes_size > 0 && c->model[0] != '\0')
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "load urdf: both urdf text and a model name: one or the other");
	}
	// The assets: each by URI once, its hash 32 bytes; one not sent must be in the store.
	load_job* job = calloc(1, sizeof(load_job));
	if (job == NULL ||
		(ctx->asset_count > 0 && (job->assets = calloc((size_t)ctx->asset_count, sizeof(load_asset))) == NULL))
	{
		free(job);
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	int64_t total = 0;
	int32_t code = 0;
	for (int i = 0; i < ctx->asset_count && code == 0; ++i)
	{
		wire_asset* in = ctx->assets + i;
		load_asset* out = job->assets + i;
		if (in->uri[0] == '\0')
		{
			code = cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "load urdf: assets[%d]: the uri is empty", i);
			break;
		}
		for (int k = 0; k < i && code == 0; ++k)
		{
			if (strcmp(ctx->assets[k].uri, in->uri) == 0)
			{
				code = cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "load urdf: assets[%d]: \"%.200s\" is listed twice", i,
								in->uri);
			}
		}
		if (code != 0)
		{
			break;
		}
		if (in->sha256_size != 0 && in->sha256_size != WIRE_HASH_SIZE)
		{
			code = cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT,
							"load urdf: assets[%d] (\"%.200s\"): sha256 has %zu bytes, not 32", i, in->uri,
							in->sha256_size);
			break;
		}
		if (in->too_large)
		{
			code = cmd_fail(ctx, SV_ERR_LIMIT_REACHED,
							"load urdf: assets[%d] (\"%.200s\"): more than max_asset_bytes (%lld)", i, in->uri,
							(long long)l->max_asset_bytes);
			break;
		}
		out->uri = strdup(in->uri);
		if (out->uri == NULL)
		{
			code = cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
			break;
		}
		out->has_claim = in->sha256_size == WIRE_HASH_SIZE;
		memcpy(out->claim, in->sha256, WIRE_HASH_SIZE);
		if (in->has_data)
		{
			// Sent now: into a blob, hashed and checked on the worker.
			out->sent = true;
			out->blob = in->data;
			in->data = NULL;
			if (out->blob == NULL)
			{
				code = cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
				break;
			}
		}
		else if (!out->has_claim)
		{
			code = cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "load urdf: assets[%d] (\"%.200s\"): neither data nor sha256",
							i, in->uri);
			break;
		}
		else
		{
			asset_blob* have = asset_store_find(&ctx->srv->assets, ASSET_FILE, in->sha256);
			if (have == NULL)
			{
				char hex[WIRE_HASH_HEX + 1];
				wire_hash_hex(in->sha256, hex);
				code = cmd_fail(
					ctx, SV_ERR_UNKNOWN_ASSET,
					"load urdf: asset \"%.120s\" (sha256 %.16s...) is not on this server: send it (PutAsset or "
					"data) and load again",
					in->uri, hex);
				break;
			}
			asset_blob_ref(have); // read on the worker: in use until the load ends
			out->blob = have;
		}
		job->asset_count = i + 1;
		total += (int64_t)out->blob->size;
	}
	if (code == 0 && total > l->max_asset_bytes_per_load)
	{
		code = cmd_fail(ctx, SV_ERR_LIMIT_REACHED,
						"load urdf: the assets have %lld bytes, more than max_asset_bytes_per_load (%lld)",
						(long long)total, (long long)l->max_asset_bytes_per_load);
	}
	if (code != 0)
	{
		job->asset_count = ctx->asset_count; // free what was made
		free_job(job);
		return code;
	}
	// The rest of the command moves into the job, which owns it from now on.
	job->session_id = ctx->session->id;
	job->request_id = ctx->request_id;
	job->urdf = ctx->bytes;
	job->urdf_size = ctx->bytes_size;
	ctx->bytes = NULL;
	ctx->bytes_size = 0;
	snprintf(job->file_name, sizeof(job->file_name), "%s", c->file_name);
	snprintf(job->model_name, sizeof(job->model_name), "%s", c->model);
	job->missing_ok = c->missing_meshes_ok;
	job->has_base_pose = c->has_base_pose;
	job->base_pose = c->base_pose;
	job->base_mode = c->base_mode;
	job->has_drive_all = c->has_drive_all && c->drive_all.has_drive;
	job->drive_all = c->drive_all.drive;
	job->drives = ctx->urdf_drives;
	job->drive_count = ctx->urdf_drive_count;
	ctx->urdf_drives = NULL;
	job->initial = ctx->urdf_initial;
	job->initial_count = ctx->urdf_initial_count;
	ctx->urdf_initial = NULL;
	job->limits = *l;
	snprintf(job->model_path, sizeof(job->model_path), "%s", ctx->srv->config.model_path);
	job->base.run = load_run;
	job->base.done = load_done;
	ctx->deferred = true;
	world_host_start_job(ctx->host, &job->base);
	return 0;
}

// A description of more objects (shapes and links) than this is encoded by a world job, off the loop: the
// reply of 65,536 shapes is several MB and took 0.2-0.3 s of the loop's time at 32,768.
#define DESCRIBE_LOOP_OBJECTS 4096

// DescribeWorld's reply, encoded on a worker while the world is held (the description reads it).
typedef struct describe_job
{
	world_job base;
	uint64_t session_id;
	uint64_t request_id;
	sinew_v1_Reply reply; // the description, its callbacks reading `scratch`
	void* scratch;
	uint8_t* bytes; // the encoded ServerMessage, after OUTBOX_MSG_HEADROOM (NULL if encoding failed)
	size_t size;
} describe_job;

static void describe_run(world_job* base)
{
	describe_job* job = (describe_job*)base;
	sinew_v1_ServerMessage message;
	session_reply_message(&message, job->request_id, 0, NULL, &job->reply, false);
	if (!wire_encode_alloc(sinew_v1_ServerMessage_fields, &message, OUTBOX_MSG_HEADROOM, &job->bytes, &job->size))
	{
		job->bytes = NULL;
	}
}

static void describe_done(world_job* base)
{
	describe_job* job = (describe_job*)base;
	server* srv = job->base.host->srv;
	metrics_count_command(&srv->metrics, command_index(sinew_v1_ClientMessage_describe_world_tag),
						  job->bytes != NULL ? 0 : SV_ERR_INTERNAL);
	if (job->bytes != NULL)
	{
		session_reply_encoded_to(srv, job->session_id, job->bytes, job->size);
	}
	else
	{
		session_reply_to(srv, job->session_id, job->request_id, SV_ERR_INTERNAL, "the reply could not be encoded",
						 NULL);
	}
	model_info_free_description(job->scratch);
	free(job);
}

int32_t handle_describe_world(command_ctx* ctx)
{
	const sinew_v1_DescribeWorld* c = &ctx->msg.command.describe_world;
	sn_articulation_id art = sn_articulation_id_load(c->articulation_id);
	if (c->articulation_id != 0 && !sn_articulation_is_valid(ctx->host->world, art))
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ID, "describe world: articulation %llu is not in world %llu",
						(unsigned long long)c->articulation_id, (unsigned long long)ctx->host->id);
	}
	void* scratch = NULL;
	if (!model_info_describe(ctx->host, art, &ctx->reply.result.description, &scratch))
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	if (model_info_description_objects(scratch) > DESCRIBE_LOOP_OBJECTS)
	{
		describe_job* job = calloc(1, sizeof(describe_job));
		if (job == NULL)
		{
			model_info_free_description(scratch);
			return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
		}
		job->session_id = ctx->session->id;
		job->request_id = ctx->request_id;
		job->reply.which_result = sinew_v1_Reply_description_tag;
		job->reply.result.description = ctx->reply.result.description;
		job->scratch = scratch;
		job->base.run = describe_run;
		job->base.done = describe_done;
		job->base.reads_only = true;
		ctx->deferred = true;
		world_host_start_job(ctx->host, &job->base);
		return 0;
	}
	ctx->reply_scratch = scratch;
	ctx->reply_scratch_free = model_info_free_description;
	ctx->reply.which_result = sinew_v1_Reply_description_tag;
	return 0;
}
