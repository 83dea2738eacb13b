// Controller commands: drive targets, forces, body state, joint state, lockstep input. Each changes all
// of what it names or nothing.
#include "command.h"
#include "control.h"
#include "convert.h"
#include "errors.h"
#include "lockstep.h"
#include "server.h"

#include "sinew/articulation.h"

#include <math.h>

int32_t handle_set_drive_targets(command_ctx* ctx)
{
	// Valid targets take the controls from the world's own controller (the demo motion), which must not
	// overwrite them at the next step; invalid ones change nothing, the controller included.
	const sinew_v1_SetDriveTargets* t = &ctx->msg.command.set_drive_targets;
	world_host* host = ctx->host;
	int32_t code = control_check_targets(host->world, t, ctx->detail, sizeof(ctx->detail));
	if (code != 0)
	{
		return code;
	}
	controller_take(&host->controller, host->world, host->id);
	return control_set_targets(host->world, t, ctx->detail, sizeof(ctx->detail));
}

int32_t handle_apply_forces(command_ctx* ctx)
{
	const sinew_v1_ApplyForces* f = &ctx->msg.command.apply_forces;
	int32_t code = control_check_forces(ctx->host->world, f, ctx->detail, sizeof(ctx->detail));
	if (code == 0)
	{
		control_apply_forces(ctx->host->world, f);
	}
	return code;
}

// Pose and velocities in one all-or-nothing call of the core.
int32_t handle_set_body_state(command_ctx* ctx)
{
	const sinew_v1_SetBodyState* b = &ctx->msg.command.set_body_state;
	sn_world* w = ctx->host->world;
	sn_body_state state = { .body = sn_body_id_load(b->body_id) };
	if (!sn_body_is_valid(w, state.body))
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ID, "set body state: body %llu does not exist",
						(unsigned long long)b->body_id);
	}
	state.has_pose = b->has_pose;
	state.pose = cv_transform(b->has_pose, &b->pose);
	state.has_linear_velocity = b->has_linear_velocity;
	state.linear_velocity = cv_vec3(b->has_linear_velocity, &b->linear_velocity, sn_v3(0, 0, 0));
	state.has_angular_velocity = b->has_angular_velocity;
	state.angular_velocity = cv_vec3(b->has_angular_velocity, &b->angular_velocity, sn_v3(0, 0, 0));
	return cmd_core(ctx, sn_world_set_body_states(w, &state, 1));
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
	// Positions and velocities are two calls of the core: everything its setters refuse (a stale id and
	// wrong counts, above; values that are not finite) is checked before the first changes anything.
	for (pb_size_t i = 0; i < j->positions_count; ++i)
	{
		if (!isfinite(j->positions[i]))
		{
			return cmd_fail(ctx, SN_ERR_NOT_FINITE, "set joint state: positions[%u] is not finite", (unsigned)i);
		}
	}
	for (pb_size_t i = 0; i < j->velocities_count; ++i)
	{
		if (!isfinite(j->velocities[i]))
		{
			return cmd_fail(ctx, SN_ERR_NOT_FINITE, "set joint state: velocities[%u] is not finite", (unsigned)i);
		}
	}
	sn_error err = SN_ERR_OK;
	if (j->positions_count > 0)
	{
		err = sn_articulation_set_joint_positions(w, aid, j->positions, dofs);
	}
	if (err == SN_ERR_OK && j->velocities_count > 0)
	{
		err = sn_articulation_set_joint_velocities(w, aid, j->velocities, dofs);
	}
	return cmd_core(ctx, err);
}

int32_t handle_lockstep_input(command_ctx* ctx)
{
	return lockstep_submit(ctx);
}
