// Handlers for collision shapes on existing bodies, links and the world itself (CreateShape,
// DestroyShape); the shapes of a new body or articulation come with CreateBody and CreateArticulation
// (handlers_object.c, handlers_articulation.c). The core validates every shape whole and changes nothing
// on failure; the server bounds how many shapes and mesh triangles a world holds (shapes.h). Hulls and
// triangle meshes are built by a world job off the loop (below): a quickhull of a large cloud or a mesh's
// bounding volume hierarchy would otherwise hold every other client.
#include "command.h"
#include "errors.h"
#include "server.h"

#include "sinew/articulation.h"

#include <pb_encode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cmd_encode_shape_ids(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const created_shapes* c = *arg;
	for (int i = 0; i < c->count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_varint(stream, sn_shape_id_store(c->ids[i])))
		{
			return false;
		}
	}
	return true;
}

// ---- building off the loop ----------------------------------------------------------------------------

bool cmd_shapes_heavy(const shape_list* list)
{
	for (int i = -1; i < list->count; ++i)
	{
		const wire_shape* s = i < 0 ? &list->loose : list->items + i;
		pb_size_t g = s->def.which_geometry;
		if ((g == sinew_v1_ShapeDef_hull_tag || g == sinew_v1_ShapeDef_mesh_tag) && (i >= 0 || s->values_of != NULL))
		{
			return true;
		}
	}
	return false;
}

enum
{
	SHAPE_JOB_MAX_GROUPS = 256 // one per link (max_links_per_articulation fits a state frame's 256)
};

typedef struct shape_job
{
	world_job base; // first: the host's job
	uint64_t session_id;
	uint64_t request_id;
	int command;
	shape_list shapes; // moved from the command
	shape_group groups[SHAPE_JOB_MAX_GROUPS];
	int group_count;
	bool new_body;
	sn_body_def body;
	bool has_density;
	double density;
	sn_articulation_id undo;
	uint64_t created_id;
	uint32_t dof_count;
	// What came of it.
	int32_t code;
	char detail[256];
	sn_shape_id* ids;    // per shape, in group order
	asset_blob** meshes; // per shape: a triangle mesh's mesh, or NULL
	int count;
	created_shapes reply; // what the reply's shape ids read
} shape_job;

static void free_shape_job(shape_job* job)
{
	for (int i = 0; job->meshes != NULL && i < job->count; ++i)
	{
		asset_blob_unref(job->meshes[i]);
	}
	free(job->meshes);
	free(job->ids);
	shape_list_free(&job->shapes);
	free(job);
}

static const wire_shape* group_shapes(const shape_job* job, const shape_group* g)
{
	return g->first < 0 ? &job->shapes.loose : job->shapes.items + g->first;
}

static void shapes_run(world_job* base)
{
	shape_job* job = (shape_job*)base;
	sn_world* world = base->host->world;
	sn_body_id made = { 0, 0 };
	if (job->new_body)
	{
		sn_error err = sn_create_body(world, &job->body, &made);
		if (err != SN_ERR_OK)
		{
			job->code = (int32_t)err;
			snprintf(job->detail, sizeof(job->detail), "%s", sn_world_last_error_detail(world));
			return;
		}
		job->created_id = sn_body_id_store(made);
		for (int g = 0; g < job->group_count; ++g)
		{
			job->groups[g].body = made;
		}
	}
	int done = 0;
	for (int g = 0; g < job->group_count && job->code == 0; ++g)
	{
		const shape_group* group = job->groups + g;
		job->code = shapes_create(world, group->body, group_shapes(job, group), group->count, job->ids + done,
								  group->label, job->detail, sizeof(job->detail));
		done += job->code == 0 ? group->count : 0;
	}
	if (job->code == 0 && job->has_density)
	{
		sn_error err = sn_body_set_mass_from_shapes(world, made, job->density);
		if (err != SN_ERR_OK)
		{
			job->code = (int32_t)err;
			snprintf(job->detail, sizeof(job->detail), "create body: density: %s", sn_world_last_error_detail(world));
		}
	}
	if (job->code != 0)
	{
		// All or nothing: what this command made goes again.
		for (int k = done - 1; k >= 0; --k)
		{
			sn_destroy_shape(world, job->ids[k]);
		}
		if (job->new_body && !sn_body_id_is_null(made))
		{
			sn_destroy_body(world, made);
		}
		if (!sn_articulation_id_is_null(job->undo))
		{
			sn_destroy_articulation(world, job->undo);
		}
		return;
	}
	for (int k = 0; k < job->count; ++k)
	{
		job->meshes[k] = shapes_mesh_blob(world, job->ids[k]); // NULL for all but triangle meshes
	}
}

static void shapes_done(world_job* base)
{
	shape_job* job = (shape_job*)base;
	world_host* host = base->host;
	server* srv = host->srv;
	if (job->code == 0 && host->doomed)
	{
		job->code = SV_ERR_UNKNOWN_WORLD;
		snprintf(job->detail, sizeof(job->detail), "world %llu was destroyed while the shapes were built",
				 (unsigned long long)host->id);
	}
	if (job->code == 0)
	{
		for (int k = 0; k < job->count; ++k)
		{
			if (job->meshes[k] != NULL)
			{
				shapes_keep_mesh(host, job->ids[k], job->meshes[k]);
			}
		}
	}
	metrics_count_command(&srv->metrics, job->command, job->code);
	if (job->code != 0)
	{
		if (!sn_articulation_id_is_null(job->undo) && !host->doomed)
		{
			model_registry_prune(&host->models, host->world);
		}
		session_reply_to(srv, job->session_id, job->request_id, job->code, job->detail, NULL);
	}
	else
	{
		sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
		reply.which_result = sinew_v1_Reply_created_tag;
		// CreateShape's created object is its one shape.
		reply.result.created.id =
			job->created_id != 0 || job->count == 0 ? job->created_id : sn_shape_id_store(job->ids[0]);
		reply.result.created.dof_count = job->dof_count;
		job->reply.ids = job->ids;
		job->reply.count = job->count;
		reply.result.created.shape_ids.funcs.encode = cmd_encode_shape_ids;
		reply.result.created.shape_ids.arg = &job->reply;
		session_reply_to(srv, job->session_id, job->request_id, 0, NULL, &reply);
	}
	free_shape_job(job);
}

int32_t cmd_build_shapes_off_loop(command_ctx* ctx, const sn_body_def* new_body, const double* density,
								  const shape_group* groups, int group_count, sn_articulation_id undo,
								  uint64_t created_id, uint32_t dof_count)
{
	int count = 0;
	for (int g = 0; g < group_count; ++g)
	{
		count += groups[g].count;
	}
	shape_job* job = group_count <= SHAPE_JOB_MAX_GROUPS ? calloc(1, sizeof(shape_job)) : NULL;
	if (job != NULL)
	{
		job->ids = calloc((size_t)(count > 0 ? count : 1), sizeof(sn_shape_id));
		job->meshes = calloc((size_t)(count > 0 ? count : 1), sizeof(asset_blob*));
	}
	if (job == NULL || job->ids == NULL || job->meshes == NULL)
	{
		if (job != NULL)
		{
			free(job->ids);
			free(job->meshes);
			free(job);
		}
		if (!sn_articulation_id_is_null(undo))
		{
			sn_destroy_articulation(ctx->host->world, undo);
		}
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	job->session_id = ctx->session->id;
	job->request_id = ctx->request_id;
	job->command = ctx->index;
	job->shapes = ctx->shapes; // the command's shapes move into the job
	memset(&ctx->shapes, 0, sizeof(ctx->shapes));
	memcpy(job->groups, groups, (size_t)group_count * sizeof(shape_group));
	job->group_count = group_count;
	job->new_body = new_body != NULL;
	if (new_body != NULL)
	{
		job->body = *new_body;
	}
	job->has_density = density != NULL;
	job->density = density != NULL ? *density : 0.0;
	job->undo = undo;
	job->created_id = created_id;
	job->dof_count = dof_count;
	job->count = count;
	job->base.run = shapes_run;
	job->base.done = shapes_done;
	ctx->deferred = true;
	world_host_start_job(ctx->host, &job->base);
	return 0;
}

// ---- the handlers -------------------------------------------------------------------------------------

int32_t handle_create_shape(command_ctx* ctx)
{
	const sinew_v1_CreateShape* c = &ctx->msg.command.create_shape;
	sn_world* world = ctx->host->world;
	if (!c->has_shape)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "create shape: the shape is missing");
	}
	sn_body_id body = { 0, 0 };
	if (c->body_id != 0 && c->articulation_id != 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT,
						"create shape: body_id and articulation_id are both set (a shape is on one body, one link or "
						"the world)");
	}
	if (c->body_id != 0)
	{
		body = sn_body_id_load(c->body_id);
		if (!sn_body_is_valid(world, body) || sn_body_get_type(world, body) == SN_BODY_LINK)
		{
			return cmd_fail(ctx, SN_ERR_INVALID_ID, "create shape: body %llu is not a body of world %llu",
							(unsigned long long)c->body_id, (unsigned long long)ctx->host->id);
		}
	}
	else if (c->articulation_id != 0)
	{
		sn_articulation_id art = sn_articulation_id_load(c->articulation_id);
		if (!sn_articulation_is_valid(world, art))
		{
			return cmd_fail(ctx, SN_ERR_INVALID_ID, "create shape: articulation %llu is not in world %llu",
							(unsigned long long)c->articulation_id, (unsigned long long)ctx->host->id);
		}
		body = sn_articulation_get_link_body(world, art, c->link);
		if (sn_body_id_is_null(body))
		{
			return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "create shape: articulation %llu has no link %d",
							(unsigned long long)c->articulation_id, (int)c->link);
		}
	}
	ctx->shapes.loose.def = c->shape;
	char why[256];
	int32_t code = shapes_check_room(ctx->host, 1, shapes_mesh_triangles(&ctx->shapes.loose, 1), why, sizeof(why));
	if (code != 0)
	{
		return cmd_fail(ctx, code, "create shape: %s", why);
	}
	if (cmd_shapes_heavy(&ctx->shapes))
	{
		shape_group group = { body, -1, 1, "create shape" };
		return cmd_build_shapes_off_loop(ctx, NULL, NULL, &group, 1, (sn_articulation_id){ 0, 0 }, 0, 0);
	}
	sn_shape_id id;
	code = shapes_create(world, body, &ctx->shapes.loose, 1, &id, "create shape", why, sizeof(why));
	if (code != 0)
	{
		return cmd_fail(ctx, code, "%s", why);
	}
	shapes_keep_meshes(ctx->host, &id, 1);
	world_host_refresh(ctx->host);
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = sn_shape_id_store(id);
	return 0;
}

int32_t handle_destroy_shape(command_ctx* ctx)
{
	const sinew_v1_DestroyShape* d = &ctx->msg.command.destroy_shape;
	sn_shape_id id = sn_shape_id_load(d->shape_id);
	sn_error err = sn_destroy_shape(ctx->host->world, id);
	if (err != SN_ERR_OK)
	{
		return cmd_core(ctx, err);
	}
	model_registry_forget(&ctx->host->models, MODEL_SHAPE_MESH, d->shape_id);
	world_host_refresh(ctx->host);
	return 0;
}
