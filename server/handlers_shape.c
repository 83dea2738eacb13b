// Handlers for collision shapes on existing bodies, links and the world itself (CreateShape,
// DestroyShape); the shapes of a new body or articulation come with CreateBody and CreateArticulation
// (handlers_object.c, handlers_articulation.c). The core validates every shape whole and changes nothing
// on failure; the server bounds how many shapes and mesh triangles a world holds (shapes.h).
#include "command.h"
#include "errors.h"
#include "server.h"

#include "sinew/articulation.h"

#include <pb_encode.h>

#include <stdio.h>

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
