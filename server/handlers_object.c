// Handlers that create and destroy bodies and joints (every joint type the core has).
#include "command.h"
#include "convert.h"
#include "errors.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>

// Bodies plus articulation links must stay within max_bodies_per_world.
static int32_t check_body_room(command_ctx* ctx, int adding)
{
	const server_limits* l = &ctx->srv->config.limits;
	int64_t used = (int64_t)sn_world_get_body_count(ctx->host->world) + ctx->host->cached.articulation_links;
	if (used + adding > l->max_bodies_per_world)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "max_bodies_per_world (%lld) reached",
						(long long)l->max_bodies_per_world);
	}
	return 0;
}

// What CreateBody's reply reads: the ids of the shapes made.
typedef struct body_reply
{
	created_shapes shapes;
	sn_shape_id ids[];
} body_reply;

int32_t handle_create_body(command_ctx* ctx)
{
	const sinew_v1_CreateBody* c = &ctx->msg.command.create_body;
	const server_limits* l = &ctx->srv->config.limits;
	int32_t code = check_body_room(ctx, 1);
	if (code != 0)
	{
		return code;
	}
	if (ctx->shapes.over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "create body: more than max_shapes_per_body (%lld) shapes",
						(long long)l->max_shapes_per_body);
	}
	int count = ctx->shapes.count;
	char why[256];
	if (count > 0)
	{
		code = shapes_check_room(ctx->host, count, shapes_mesh_triangles(ctx->shapes.items, count), why, sizeof(why));
		if (code != 0)
		{
			return cmd_fail(ctx, code, "create body: %s", why);
		}
	}
	sn_body_def def = cv_body_def(c->has_body, &c->body);
	if (cmd_shapes_heavy(&ctx->shapes))
	{
		shape_group group = { { 0, 0 }, 0, count, "create body: shapes" };
		return cmd_build_shapes_off_loop(ctx, &def, c->has_density ? &c->density : NULL, &group, 1,
										 (sn_articulation_id){ 0, 0 }, 0, 0);
	}
	body_reply* reply = malloc(sizeof(body_reply) + (size_t)(count > 0 ? count : 1) * sizeof(sn_shape_id));
	if (reply == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	sn_body_id id;
	sn_error err = sn_create_body(ctx->host->world, &def, &id);
	if (err != SN_ERR_OK)
	{
		free(reply);
		return cmd_core(ctx, err);
	}
	// The shapes and the mass from them, all or nothing: on failure the body goes again, with any shape.
	code = shapes_create(ctx->host->world, id, ctx->shapes.items, count, reply->ids, "create body: shapes", why,
						 sizeof(why));
	if (code == 0 && c->has_density)
	{
		err = sn_body_set_mass_from_shapes(ctx->host->world, id, c->density);
		if (err != SN_ERR_OK)
		{
			code = (int32_t)err;
			snprintf(why, sizeof(why), "create body: density: %s", sn_world_last_error_detail(ctx->host->world));
		}
	}
	if (code != 0)
	{
		sn_destroy_body(ctx->host->world, id);
		free(reply);
		return cmd_fail(ctx, code, "%s", why);
	}
	shapes_keep_meshes(ctx->host, reply->ids, count);
	world_host_refresh(ctx->host);
	reply->shapes.ids = reply->ids;
	reply->shapes.count = count;
	ctx->reply_scratch = reply;
	ctx->reply_scratch_free = free;
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = sn_body_id_store(id);
	ctx->reply.result.created.shape_ids.funcs.encode = cmd_encode_shape_ids;
	ctx->reply.result.created.shape_ids.arg = &reply->shapes;
	return 0;
}

int32_t handle_destroy_body(command_ctx* ctx)
{
	const sinew_v1_DestroyBody* d = &ctx->msg.command.destroy_body;
	sn_error err = sn_destroy_body(ctx->host->world, sn_body_id_load(d->body_id));
	if (err != SN_ERR_OK)
	{
		return cmd_core(ctx, err);
	}
	// Its shapes went with it, and the meshes they were drawn with.
	model_registry_prune(&ctx->host->models, ctx->host->world);
	world_host_refresh(ctx->host);
	return 0;
}

// Joint defs: start from the core's default def of the type, overwrite what the message carries.
static sn_error create_hinge(sn_world* w, sn_joint_base base, const sinew_v1_HingeJoint* m, sn_joint_id* id)
{
	sn_hinge_joint_def def = sn_default_hinge_joint_def();
	def.base = base;
	def.limit = cv_limit(m->has_limit, &m->limit, def.limit);
	def.motor = cv_motor(m->has_motor, &m->motor, def.motor);
	def.spring = cv_spring(m->has_spring, &m->spring, def.spring);
	return sn_create_hinge_joint(w, &def, id);
}

static sn_error create_prismatic(sn_world* w, sn_joint_base base, const sinew_v1_PrismaticJoint* m, sn_joint_id* id)
{
	sn_prismatic_joint_def def = sn_default_prismatic_joint_def();
	def.base = base;
	def.limit = cv_limit(m->has_limit, &m->limit, def.limit);
	def.motor = cv_motor(m->has_motor, &m->motor, def.motor);
	def.spring = cv_spring(m->has_spring, &m->spring, def.spring);
	return sn_create_prismatic_joint(w, &def, id);
}

static sn_error create_cylindrical(sn_world* w, sn_joint_base base, const sinew_v1_CylindricalJoint* m, sn_joint_id* id)
{
	sn_cylindrical_joint_def def = sn_default_cylindrical_joint_def();
	def.base = base;
	def.linear_limit = cv_limit(m->has_linear_limit, &m->linear_limit, def.linear_limit);
	def.linear_motor = cv_motor(m->has_linear_motor, &m->linear_motor, def.linear_motor);
	def.linear_spring = cv_spring(m->has_linear_spring, &m->linear_spring, def.linear_spring);
	def.angular_limit = cv_limit(m->has_angular_limit, &m->angular_limit, def.angular_limit);
	def.angular_motor = cv_motor(m->has_angular_motor, &m->angular_motor, def.angular_motor);
	def.angular_spring = cv_spring(m->has_angular_spring, &m->angular_spring, def.angular_spring);
	return sn_create_cylindrical_joint(w, &def, id);
}

static sn_error create_spherical(sn_world* w, sn_joint_base base, const sinew_v1_SphericalJoint* m, sn_joint_id* id)
{
	sn_spherical_joint_def def = sn_default_spherical_joint_def();
	def.base = base;
	if (m->has_swing)
	{
		def.swing.enabled = m->swing.enabled;
		def.swing.y_angle = m->swing.y_angle;
		def.swing.z_angle = m->swing.z_angle;
		def.swing.soft = cv_soft(m->swing.has_soft, &m->swing.soft, sn_soft_rigid());
	}
	def.twist = cv_limit(m->has_twist, &m->twist, def.twist);
	return sn_create_spherical_joint(w, &def, id);
}

static sn_error create_distance(sn_world* w, sn_joint_base base, const sinew_v1_DistanceJoint* m, sn_joint_id* id)
{
	sn_distance_joint_def def = sn_default_distance_joint_def();
	def.base = base;
	if (m->has_length)
	{
		def.length = m->length;
	}
	def.spring_enabled = m->spring_enabled;
	def.spring = cv_soft(m->has_spring, &m->spring, def.spring);
	def.limit = cv_limit(m->has_limit, &m->limit, def.limit);
	return sn_create_distance_joint(w, &def, id);
}

static int32_t create_six_axis(command_ctx* ctx, sn_joint_base base, const sinew_v1_SixAxisJoint* m, sn_joint_id* id)
{
	sn_six_axis_joint_def def = sn_default_six_axis_joint_def();
	def.base = base;
	bool seen[SN_AXIS_COUNT] = { false };
	for (pb_size_t i = 0; i < m->axes_count; ++i)
	{
		const sinew_v1_JointAxis* a = m->axes + i;
		if ((int)a->axis < 0 || (int)a->axis >= SN_AXIS_COUNT)
		{
			return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "six-axis joint: axes[%u] names unknown axis %d", (unsigned)i,
							(int)a->axis);
		}
		if (seen[a->axis])
		{
			return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "six-axis joint: axis %d is listed twice", (int)a->axis);
		}
		seen[a->axis] = true;
		sn_joint_axis* out = def.axes + a->axis;
		switch (a->mode)
		{
			case sinew_v1_AxisMode_AXIS_LOCKED:
				out->mode = SN_AXIS_LOCKED;
				break;
			case sinew_v1_AxisMode_AXIS_FREE:
				out->mode = SN_AXIS_FREE;
				break;
			case sinew_v1_AxisMode_AXIS_LIMITED:
				out->mode = SN_AXIS_LIMITED;
				break;
			default:
				return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "six-axis joint: unknown axis mode %d", (int)a->mode);
		}
		out->lower = a->lower;
		out->upper = a->upper;
		out->limit_soft = cv_soft(a->has_limit_soft, &a->limit_soft, out->limit_soft);
		out->motor = cv_motor(a->has_motor, &a->motor, out->motor);
		out->spring = cv_spring(a->has_spring, &a->spring, out->spring);
	}
	return cmd_core(ctx, sn_create_six_axis_joint(ctx->host->world, &def, id));
}

int32_t handle_create_joint(command_ctx* ctx)
{
	const sinew_v1_CreateJoint* c = &ctx->msg.command.create_joint;
	sn_world* w = ctx->host->world;
	const server_limits* l = &ctx->srv->config.limits;
	if (sn_world_get_joint_count(w) >= l->max_joints_per_world)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "max_joints_per_world (%lld) reached",
						(long long)l->max_joints_per_world);
	}
	sn_joint_base base = cv_joint_base(c->has_base, &c->base);
	sn_joint_id id = { 0, 0 };
	int32_t code;
	switch (c->which_type)
	{
		case sinew_v1_CreateJoint_fixed_tag:
		{
			sn_fixed_joint_def def = sn_default_fixed_joint_def();
			def.base = base;
			code = cmd_core(ctx, sn_create_fixed_joint(w, &def, &id));
			break;
		}
		case sinew_v1_CreateJoint_hinge_tag:
			code = cmd_core(ctx, create_hinge(w, base, &c->type.hinge, &id));
			break;
		case sinew_v1_CreateJoint_prismatic_tag:
			code = cmd_core(ctx, create_prismatic(w, base, &c->type.prismatic, &id));
			break;
		case sinew_v1_CreateJoint_cylindrical_tag:
			code = cmd_core(ctx, create_cylindrical(w, base, &c->type.cylindrical, &id));
			break;
		case sinew_v1_CreateJoint_spherical_tag:
			code = cmd_core(ctx, create_spherical(w, base, &c->type.spherical, &id));
			break;
		case sinew_v1_CreateJoint_distance_tag:
			code = cmd_core(ctx, create_distance(w, base, &c->type.distance, &id));
			break;
		case sinew_v1_CreateJoint_six_axis_tag:
			code = create_six_axis(ctx, base, &c->type.six_axis, &id);
			break;
		default:
			return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "create joint: the joint type is missing");
	}
	if (code != 0)
	{
		return code;
	}
	world_host_refresh(ctx->host);
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = sn_joint_id_store(id);
	return 0;
}

int32_t handle_destroy_joint(command_ctx* ctx)
{
	const sinew_v1_DestroyJoint* d = &ctx->msg.command.destroy_joint;
	sn_error err = sn_destroy_joint(ctx->host->world, sn_joint_id_load(d->joint_id));
	if (err != SN_ERR_OK)
	{
		return cmd_core(ctx, err);
	}
	world_host_refresh(ctx->host);
	return 0;
}
