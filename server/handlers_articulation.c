// Handlers for articulations (trees of links in joint coordinates, core/include/sinew/articulation.h) and
// mimic joints. The links arrive one by one through a growing field (command.c's decode hook, at most
// max_links_per_articulation); a state frame carries at most 256 links and 768 dofs of one articulation
// (sinew.options), so larger ones are refused here rather than streamed cut.
#include "command.h"
#include "convert.h"
#include "errors.h"
#include "frame.h"
#include "server.h"

#include "sinew/articulation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The schema bounds what one state frame element can carry (ArticulationState in sinew.options).
enum
{
	FRAME_MAX_LINKS = FRAME_MAX_ARTICULATION_LINKS,
	FRAME_MAX_DOFS = FRAME_MAX_ARTICULATION_DOFS
};

// What CreateArticulation's reply reads: the ids of the links' shapes.
typedef struct art_reply
{
	created_shapes shapes;
	sn_shape_id ids[];
} art_reply;

static int32_t link_def(command_ctx* ctx, int index, const sinew_v1_LinkDef* in, sn_link_def* out)
{
	*out = sn_default_link_def();
	out->parent = in->parent;
	switch (in->joint_type)
	{
		case sinew_v1_LinkJointType_LINK_FIXED:
			out->joint_type = SN_LINK_JOINT_FIXED;
			break;
		case sinew_v1_LinkJointType_LINK_REVOLUTE:
			out->joint_type = SN_LINK_JOINT_REVOLUTE;
			break;
		case sinew_v1_LinkJointType_LINK_PRISMATIC:
			out->joint_type = SN_LINK_JOINT_PRISMATIC;
			break;
		case sinew_v1_LinkJointType_LINK_SPHERICAL:
			out->joint_type = SN_LINK_JOINT_SPHERICAL;
			break;
		default:
			return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "links[%d]: unknown joint type %d", index,
							(int)in->joint_type);
	}
	out->parent_frame = cv_transform(in->has_parent_frame, &in->parent_frame);
	out->child_frame = cv_transform(in->has_child_frame, &in->child_frame);
	if (in->has_mass)
	{
		out->mass = in->mass;
	}
	out->inertia = cv_inertia(in->has_inertia, &in->inertia, out->inertia);
	out->center_of_mass = cv_vec3(in->has_center_of_mass, &in->center_of_mass, out->center_of_mass);
	for (pb_size_t d = 0; d < in->limits_count && d < SN_LINK_MAX_DOFS; ++d)
	{
		out->limit[d] = cv_limit(true, in->limits + d, out->limit[d]);
	}
	for (pb_size_t d = 0; d < in->drives_count && d < SN_LINK_MAX_DOFS; ++d)
	{
		const sinew_v1_Drive* dr = in->drives + d;
		sn_drive drive = sn_default_drive();
		drive.enabled = dr->enabled;
		drive.type = dr->type == sinew_v1_DriveType_DRIVE_ACCELERATION ? SN_DRIVE_ACCELERATION
			: dr->type == sinew_v1_DriveType_DRIVE_FORCE               ? SN_DRIVE_FORCE
																	   : (sn_drive_type)(100 + (int)dr->type);
		drive.stiffness = dr->stiffness;
		drive.damping = dr->damping;
		drive.target_position = dr->target_position;
		drive.target_velocity = dr->target_velocity;
		if (dr->has_max_force)
		{
			drive.max_force = dr->max_force;
		}
		out->drive[d] = drive;
	}
	out->joint_damping = in->joint_damping;
	out->joint_friction = in->joint_friction;
	out->armature = in->armature;
	if (in->has_max_joint_velocity)
	{
		out->max_joint_velocity = in->max_joint_velocity;
	}
	for (pb_size_t d = 0; d < in->initial_position_count && d < SN_LINK_MAX_DOFS; ++d)
	{
		out->initial_position[d] = in->initial_position[d];
	}
	for (pb_size_t d = 0; d < in->initial_velocity_count && d < SN_LINK_MAX_DOFS; ++d)
	{
		out->initial_velocity[d] = in->initial_velocity[d];
	}
	out->user_data = in->user_data;
	return 0;
}

int32_t handle_create_articulation(command_ctx* ctx)
{
	const sinew_v1_CreateArticulation* c = &ctx->msg.command.create_articulation;
	const server_limits* l = &ctx->srv->config.limits;
	if (ctx->links_over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED,
						"create articulation: more than max_links_per_articulation (%lld) links",
						(long long)l->max_links_per_articulation);
	}
	if (ctx->link_count == 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "create articulation: no links");
	}
	if (ctx->shapes.over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED,
						"create articulation: a link with more than max_shapes_per_body (%lld) shapes",
						(long long)l->max_shapes_per_body);
	}
	int shape_count = ctx->shapes.count;
	if (shape_count > 0)
	{
		char why[256];
		int32_t code = shapes_check_room(ctx->host, shape_count, shapes_mesh_triangles(ctx->shapes.items, shape_count),
										 why, sizeof(why));
		if (code != 0)
		{
			return cmd_fail(ctx, code, "create articulation: %s", why);
		}
	}
	if (ctx->link_count > FRAME_MAX_LINKS)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED,
						"create articulation: %d links; a state frame carries at most %d per articulation",
						ctx->link_count, FRAME_MAX_LINKS);
	}
	int64_t used = (int64_t)sn_world_get_body_count(ctx->host->world) + ctx->host->cached.articulation_links;
	if (used + ctx->link_count > l->max_bodies_per_world)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "max_bodies_per_world (%lld) reached (links count as bodies)",
						(long long)l->max_bodies_per_world);
	}
	sn_link_def* links = malloc((size_t)ctx->link_count * sizeof(sn_link_def));
	if (links == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	for (int i = 0; i < ctx->link_count; ++i)
	{
		int32_t code = link_def(ctx, i, ctx->links + i, links + i);
		if (code != 0)
		{
			free(links);
			return code;
		}
	}
	sn_articulation_def def = sn_default_articulation_def();
	if (c->has_articulation)
	{
		const sinew_v1_ArticulationDef* a = &c->articulation;
		if (a->has_fixed_base)
		{
			def.fixed_base = a->fixed_base;
		}
		def.base_pose = cv_transform(a->has_base_pose, &a->base_pose);
		def.base_linear_velocity =
			cv_vec3(a->has_base_linear_velocity, &a->base_linear_velocity, def.base_linear_velocity);
		def.base_angular_velocity =
			cv_vec3(a->has_base_angular_velocity, &a->base_angular_velocity, def.base_angular_velocity);
		if (a->has_gravity_scale)
		{
			def.gravity_scale = a->gravity_scale;
		}
		if (a->has_midpoint_velocity_terms)
		{
			def.midpoint_velocity_terms = a->midpoint_velocity_terms;
		}
		def.user_data = a->user_data;
	}
	sn_articulation_id id;
	sn_error err = sn_create_articulation(ctx->host->world, &def, links, ctx->link_count, &id);
	free(links);
	if (err != SN_ERR_OK)
	{
		return cmd_core(ctx, err);
	}
	int dofs = sn_articulation_get_dof_count(ctx->host->world, id);
	if (dofs > FRAME_MAX_DOFS)
	{
		sn_destroy_articulation(ctx->host->world, id);
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "create articulation: %d dofs; a state frame carries at most %d",
						dofs, FRAME_MAX_DOFS);
	}
	// The links' shapes, all or nothing with the articulation (they go with it on failure): hulls and meshes
	// off the loop.
	if (cmd_shapes_heavy(&ctx->shapes))
	{
		shape_group groups[FRAME_MAX_LINKS];
		int group_count = 0;
		for (int first = 0; first < shape_count && group_count < FRAME_MAX_LINKS;)
		{
			int link = ctx->shapes.items[first].owner;
			int end = first;
			while (end < shape_count && ctx->shapes.items[end].owner == link)
			{
				end += 1;
			}
			shape_group* g = groups + group_count++;
			g->body = sn_articulation_get_link_body(ctx->host->world, id, link);
			g->first = first;
			g->count = end - first;
			snprintf(g->label, sizeof(g->label), "create articulation: links[%d].shapes", link);
			first = end;
		}
		return cmd_build_shapes_off_loop(ctx, NULL, NULL, groups, group_count, id, sn_articulation_id_store(id),
										 (uint32_t)dofs);
	}
	art_reply* reply = malloc(sizeof(art_reply) + (size_t)(shape_count > 0 ? shape_count : 1) * sizeof(sn_shape_id));
	if (reply == NULL)
	{
		sn_destroy_articulation(ctx->host->world, id);
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	for (int first = 0; first < shape_count;)
	{
		int link = ctx->shapes.items[first].owner;
		int end = first;
		while (end < shape_count && ctx->shapes.items[end].owner == link)
		{
			end += 1;
		}
		char label[64], why[256];
		snprintf(label, sizeof(label), "create articulation: links[%d].shapes", link);
		int32_t code =
			shapes_create(ctx->host->world, sn_articulation_get_link_body(ctx->host->world, id, link),
						  ctx->shapes.items + first, end - first, reply->ids + first, label, why, sizeof(why));
		if (code != 0)
		{
			sn_destroy_articulation(ctx->host->world, id);
			free(reply);
			return cmd_fail(ctx, code, "%s", why);
		}
		first = end;
	}
	shapes_keep_meshes(ctx->host, reply->ids, shape_count);
	world_host_refresh(ctx->host);
	reply->shapes.ids = reply->ids;
	reply->shapes.count = shape_count;
	ctx->reply_scratch = reply;
	ctx->reply_scratch_free = free;
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = sn_articulation_id_store(id);
	ctx->reply.result.created.dof_count = (uint32_t)dofs;
	ctx->reply.result.created.shape_ids.funcs.encode = cmd_encode_shape_ids;
	ctx->reply.result.created.shape_ids.arg = &reply->shapes;
	return 0;
}

int32_t handle_destroy_articulation(command_ctx* ctx)
{
	const sinew_v1_DestroyArticulation* d = &ctx->msg.command.destroy_articulation;
	sn_error err = sn_destroy_articulation(ctx->host->world, sn_articulation_id_load(d->articulation_id));
	if (err != SN_ERR_OK)
	{
		return cmd_core(ctx, err);
	}
	// Its description and its links' shapes' meshes go with it.
	model_registry_prune(&ctx->host->models, ctx->host->world);
	world_host_refresh(ctx->host);
	return 0;
}

int32_t handle_create_mimic(command_ctx* ctx)
{
	const sinew_v1_CreateMimic* c = &ctx->msg.command.create_mimic;
	if (!c->has_mimic)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "create mimic: the mimic def is missing");
	}
	const sinew_v1_MimicDef* m = &c->mimic;
	if (m->gearing_count != m->dofs_count)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "create mimic: %u dofs but %u gearings", (unsigned)m->dofs_count,
						(unsigned)m->gearing_count);
	}
	sn_mimic_def def = sn_default_mimic_def();
	def.articulation = sn_articulation_id_load(m->articulation_id);
	def.dof_count = (int)m->dofs_count;
	for (pb_size_t i = 0; i < m->dofs_count; ++i)
	{
		def.dofs[i] = m->dofs[i] > (uint32_t)INT32_MAX ? -1 : (int)m->dofs[i];
		def.gearing[i] = m->gearing[i];
	}
	def.offset = m->offset;
	if (m->has_erp)
	{
		def.erp = m->erp;
	}
	def.soft = cv_soft(m->has_soft, &m->soft, def.soft);
	if (m->has_max_force)
	{
		def.max_force = m->max_force;
	}
	def.user_data = m->user_data;
	const int64_t max = ctx->srv->config.limits.max_mimic_joints_per_world;
	if (sn_world_get_mimic_joints(ctx->host->world, NULL, 0) >= max)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "create mimic: max_mimic_joints_per_world (%lld) reached",
						(long long)max);
	}
	sn_mimic_id id;
	sn_error err = sn_create_mimic_joint(ctx->host->world, &def, &id);
	if (err != SN_ERR_OK)
	{
		return cmd_core(ctx, err);
	}
	world_host_refresh(ctx->host);
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = sn_mimic_id_store(id);
	return 0;
}

int32_t handle_destroy_mimic(command_ctx* ctx)
{
	const sinew_v1_DestroyMimic* d = &ctx->msg.command.destroy_mimic;
	int32_t code = cmd_core(ctx, sn_destroy_mimic_joint(ctx->host->world, sn_mimic_id_load(d->mimic_id)));
	if (code == 0)
	{
		world_host_refresh(ctx->host);
	}
	return code;
}
