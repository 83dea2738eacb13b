// Controller commands: drive targets, body state, forces, joint state, lockstep input.
#include "command.h"
#include "control.h"
#include "convert.h"
#include "errors.h"
#include "lockstep.h"
#include "server.h"

#include "sinew/articulation.h"

int32_t handle_set_drive_targets(command_ctx* ctx)
{
	// Valid targets take the controls from the world's own controller (the demo motion), which must not
	// overwrite them at the next step; invalid ones change nothing, the controller included.
	int32_t code = control_set_targets(ctx->host->world, &ctx->msg.command.set_drive_targets, true, ctx->detail,
									   sizeof(ctx->detail));
	if (code != 0)
	{
		return code;
	}
	controller_take(&ctx->host->controller, ctx->host->world, ctx->host->id);
	return control_set_targets(ctx->host->world, &ctx->msg.command.set_drive_targets, false, ctx->detail,
							   sizeof(ctx->detail));
}

int32_t handle_apply_forces(command_ctx* ctx)
{
	return control_apply_forces(ctx->host->world, &ctx->msg.command.apply_forces, false, ctx->detail,
								sizeof(ctx->detail));
}

int32_t handle_set_body_state(command_ctx* ctx)
{
	const sinew_v1_SetBodyState* b = &ctx->msg.command.set_body_state;
	sn_world* w = ctx->host->world;
	sn_body_id id = sn_body_id_load(b->body_id);
	if (!sn_body_is_valid(w, id))
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ID, "set body state: body %llu does not exist",
						(unsigned long long)b->body_id);
	}
	// Keep the old state to put back if a later part is rejected.
	sn_transform pose = sn_body_get_pose(w, id);
	sn_vec3 v = sn_body_get_linear_velocity(w, id);
	sn_vec3 omega = sn_body_get_angular_velocity(w, id);
	sn_error err = SN_ERR_OK;
	if (b->has_pose)
	{
		err = sn_body_set_pose(w, id, cv_transform(true, &b->pose));
	}
	if (err == SN_ERR_OK && b->has_linear_velocity)
	{
		err = sn_body_set_linear_velocity(w, id, cv_vec3(true, &b->linear_velocity, v));
	}
	if (err == SN_ERR_OK && b->has_angular_velocity)
	{
		err = sn_body_set_angular_velocity(w, id, cv_vec3(true, &b->angular_velocity, omega));
	}
	if (err != SN_ERR_OK)
	{
		int32_t code = cmd_core(ctx, err);
		sn_body_set_pose(w, id, pose);
		sn_body_set_linear_velocity(w, id, v);
		sn_body_set_angular_velocity(w, id, omega);
		return code;
	}
	return 0;
}

int32_t handle_set_joint_state(command_ctx* ctx)
{
	const sinew_v1_SetJointState* j = &ctx->msg.command.set_joint_state;
	sn_world* w = ctx->host->world;
	sn_articulation_id aid = sn_articulation_id_load(j->articulation_id);
	if (!sn_articulation_is_valid(w, aid))
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ID, "set joint state: articulation %llu does not exist",
						(unsigned long long)j->articulation_id);
	}
	int dofs = sn_articulation_get_dof_count(w, aid);
	if ((j->positions_count != 0 && (int)j->positions_count != dofs) ||
		(j->velocities_count != 0 && (int)j->velocities_count != dofs))
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT,
						"set joint state: the articulation has %d dofs; got %u positions and %u velocities", dofs,
						(unsigned)j->positions_count, (unsigned)j->velocities_count);
	}
	double old_q[sizeof(j->positions) / sizeof(j->positions[0])];
	sn_articulation_get_joint_positions(w, aid, old_q, dofs);
	sn_error err = SN_ERR_OK;
	if (j->positions_count > 0)
	{
		err = sn_articulation_set_joint_positions(w, aid, j->positions, dofs);
	}
	if (err == SN_ERR_OK && j->velocities_count > 0)
	{
		err = sn_articulation_set_joint_velocities(w, aid, j->velocities, dofs);
		if (err != SN_ERR_OK && j->positions_count > 0)
		{
			int32_t code = cmd_core(ctx, err);
			sn_articulation_set_joint_positions(w, aid, old_q, dofs);
			return code;
		}
	}
	return cmd_core(ctx, err);
}

int32_t handle_lockstep_input(command_ctx* ctx)
{
	return lockstep_submit(ctx);
}
