// Robot models: LoadUrdf reads URDF text with the importer (core/model), builds it into the world as one
// articulation with its mimic joints, and answers with where every URDF link, joint and visual went
// (model_info.c); the world keeps that answer for DescribeWorld, which tells a client that joins later
// what the world's articulations are made of. The importer validates the text (its errors carry file,
// line, element and what, and become the status message); the core validates what the importer builds.
// Nothing is created on failure.
#include "command.h"
#include "convert.h"
#include "errors.h"
#include "frame.h"
#include "model_info.h"
#include "server.h"

#include "sinew/model.h"

#include <pb_encode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// What the reply's callbacks read; freed after the reply is encoded.
typedef struct urdf_reply
{
	snm_model* model;
	snm_build_result built;
	model_info info;
} urdf_reply;

static void free_urdf_reply(void* p)
{
	urdf_reply* r = p;
	if (r != NULL)
	{
		snm_build_result_free(&r->built);
		snm_model_destroy(r->model);
		free(r);
	}
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

int32_t handle_load_urdf(command_ctx* ctx)
{
	const sinew_v1_LoadUrdf* c = &ctx->msg.command.load_urdf;
	const server_limits* l = &ctx->srv->config.limits;
	if (ctx->urdf_over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "load urdf: more than %d drives or initial values",
						COMMAND_URDF_MAX_ENTRIES);
	}
	if (ctx->bytes_size == 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "load urdf: the urdf text is empty");
	}
	snm_error error;
	urdf_reply* r = calloc(1, sizeof(*r));
	if (r == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	sn_error err = snm_parse_urdf((const char*)ctx->bytes, ctx->bytes_size,
								  c->file_name[0] != '\0' ? c->file_name : "<urdf>", NULL, &r->model, &error);
	if (err != SN_ERR_OK)
	{
		free_urdf_reply(r);
		return cmd_fail(ctx, err, "%s", error.text);
	}
	// The same limits as CreateArticulation (counted on the URDF's links: merging can only lower the count).
	int64_t max_links = l->max_links_per_articulation < FRAME_MAX_ARTICULATION_LINKS ? l->max_links_per_articulation
																					 : FRAME_MAX_ARTICULATION_LINKS;
	if (r->model->link_count > max_links)
	{
		int count = r->model->link_count;
		free_urdf_reply(r);
		return cmd_fail(
			ctx, SV_ERR_LIMIT_REACHED,
			"load urdf: %d links, more than max_links_per_articulation (%lld) or what a state frame carries "
			"(%d)",
			count, (long long)l->max_links_per_articulation, FRAME_MAX_ARTICULATION_LINKS);
	}
	int64_t used = (int64_t)sn_world_get_body_count(ctx->host->world) + ctx->host->cached.articulation_links;
	if (used + r->model->link_count > l->max_bodies_per_world)
	{
		free_urdf_reply(r);
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "max_bodies_per_world (%lld) reached (links count as bodies)",
						(long long)l->max_bodies_per_world);
	}

	snm_drive_gains* drives = malloc((size_t)(ctx->urdf_drive_count + 1) * sizeof(snm_drive_gains));
	snm_joint_value* initial = malloc((size_t)(ctx->urdf_initial_count + 1) * sizeof(snm_joint_value));
	if (drives == NULL || initial == NULL)
	{
		free(drives);
		free(initial);
		free_urdf_reply(r);
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	for (int i = 0; i < ctx->urdf_drive_count; ++i)
	{
		drives[i] = drive_gains(ctx->urdf_drives[i].joint, &ctx->urdf_drives[i].drive);
	}
	for (int i = 0; i < ctx->urdf_initial_count; ++i)
	{
		initial[i].joint = ctx->urdf_initial[i].joint;
		initial[i].value = ctx->urdf_initial[i].value;
	}
	snm_build_def def = snm_default_build_def();
	def.articulation.base_pose = cv_transform(c->has_base_pose, &c->base_pose);
	def.base_mode = c->base_mode == sinew_v1_BaseMode_BASE_FIXED ? SNM_BASE_FIXED
		: c->base_mode == sinew_v1_BaseMode_BASE_FLOATING        ? SNM_BASE_FLOATING
		: c->base_mode == sinew_v1_BaseMode_BASE_AUTO            ? SNM_BASE_AUTO
																 : (snm_base_mode)(100 + (int)c->base_mode);
	if (c->has_drive_all && c->drive_all.has_drive)
	{
		def.drive_all = drive_gains(NULL, &c->drive_all.drive);
	}
	def.drives = drives;
	def.drive_count = ctx->urdf_drive_count;
	def.initial = initial;
	def.initial_count = ctx->urdf_initial_count;
	err = snm_build(ctx->host->world, r->model, &def, &r->built, &error);
	free(drives);
	free(initial);
	if (err != SN_ERR_OK)
	{
		free_urdf_reply(r);
		return cmd_fail(ctx, err, "%s", error.text);
	}
	sn_articulation_id art = r->built.articulation;
	int dofs = sn_articulation_get_dof_count(ctx->host->world, art);
	if (dofs > FRAME_MAX_ARTICULATION_DOFS)
	{
		sn_destroy_articulation(ctx->host->world, art);
		free_urdf_reply(r);
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "load urdf: %d dofs; a state frame carries at most %d", dofs,
						FRAME_MAX_ARTICULATION_DOFS);
	}
	r->info.model = r->model;
	r->info.built = &r->built;
	if (!model_info_keep(&ctx->host->models, &r->info, art, dofs))
	{
		sn_destroy_articulation(ctx->host->world, art);
		free_urdf_reply(r);
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	world_host_refresh(ctx->host);

	ctx->reply_scratch = r;
	ctx->reply_scratch_free = free_urdf_reply;
	ctx->reply.which_result = sinew_v1_Reply_urdf_tag;
	model_info_fill(&ctx->reply.result.urdf, &r->info, art, dofs);
	return 0;
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
	ctx->reply_scratch = scratch;
	ctx->reply_scratch_free = model_info_free_description;
	ctx->reply.which_result = sinew_v1_Reply_description_tag;
	return 0;
}
