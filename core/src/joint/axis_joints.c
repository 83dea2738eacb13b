// The joint types made of the axis engine's six coordinates (joint.h derives them; joint_axes.c builds
// their rows): fixed, hinge, prismatic, cylindrical and six-axis. Each type is only a table of which
// axes are locked and which move, with its defaults; it has no rows of its own. Side by side in one file
// they read as that table. The spherical and distance joints, which build rows of their own (the swing
// cone, the distance), keep a file each.
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

// ---- fixed ------------------------------------------------------------------------------------------
// Fixed joint (weld): all six coordinates of joint.h locked. Rows: C_k = d . a_k for k = x, y, z and
// C = (theta, s_y, s_z) of the relative rotation, each with the Jacobian derived in joint.h. With a
// lock softness the weld yields like a six-axis spring (static deflection F / k on each axis).

sn_fixed_joint_def sn_default_fixed_joint_def(void)
{
	sn_fixed_joint_def def;
	def.base = sn_default_joint_base();
	return def;
}

sn_error sn_create_fixed_joint(sn_world* world, const sn_fixed_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create fixed joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	return joint_create(world, SN_JOINT_FIXED, &def->base, &config, out_id);
}

// ---- hinge ------------------------------------------------------------------------------------------
// Hinge (revolute) joint: the anchors coincide (three linear locks, C_k = d . a_k) and the swing of
// frame B about frame A is locked (C = s_y, s_z); the twist theta about frame x is free and carries
// the limit, motor and spring. theta = 2 atan2(q_x, q_w) with dtheta = (1, z'/r, -y'/r) . W (joint.h),
// which is the hinge axis itself while the swing locks hold.

sn_hinge_joint_def sn_default_hinge_joint_def(void)
{
	sn_hinge_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.limit.soft = sn_soft_rigid();
	def.motor.max_force = INFINITY;
	def.spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.spring.max_force = INFINITY;
	return def;
}

sn_error sn_create_hinge_joint(sn_world* world, const sn_hinge_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create hinge joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	config.axes[SN_AXIS_RX] = joint_moving_axis(def->limit, def->motor, def->spring);
	config.movable = 1u << SN_AXIS_RX;
	return joint_create(world, SN_JOINT_HINGE, &def->base, &config, out_id);
}

// ---- prismatic --------------------------------------------------------------------------------------
// Prismatic (slider) joint: all rotation locked (C = theta, s_y, s_z) and the anchors kept on frame A's
// x axis (C = d . a_y, d . a_z). The translation x = d . a_x is free with limit, motor and spring. The
// axis turns with body A, so each linear row carries ang_a = -((rA + d) x a) (joint.h).

sn_prismatic_joint_def sn_default_prismatic_joint_def(void)
{
	sn_prismatic_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.limit.soft = sn_soft_rigid();
	def.motor.max_force = INFINITY;
	def.spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.spring.max_force = INFINITY;
	return def;
}

sn_error sn_create_prismatic_joint(sn_world* world, const sn_prismatic_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create prismatic joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	config.axes[SN_AXIS_X] = joint_moving_axis(def->limit, def->motor, def->spring);
	config.movable = 1u << SN_AXIS_X;
	return joint_create(world, SN_JOINT_PRISMATIC, &def->base, &config, out_id);
}

// ---- cylindrical ------------------------------------------------------------------------------------
// Cylindrical joint: a prismatic joint whose twist is also free. Locks: C = d . a_y, d . a_z, s_y, s_z.
// Free: translation x = d . a_x and twist theta, each with its own limit, motor and spring.

sn_cylindrical_joint_def sn_default_cylindrical_joint_def(void)
{
	sn_cylindrical_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.linear_limit.soft = sn_soft_rigid();
	def.angular_limit.soft = sn_soft_rigid();
	def.linear_motor.max_force = INFINITY;
	def.angular_motor.max_force = INFINITY;
	def.linear_spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.angular_spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.linear_spring.max_force = INFINITY;
	def.angular_spring.max_force = INFINITY;
	return def;
}

sn_error sn_create_cylindrical_joint(sn_world* world, const sn_cylindrical_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create cylindrical joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	config.axes[SN_AXIS_X] = joint_moving_axis(def->linear_limit, def->linear_motor, def->linear_spring);
	config.axes[SN_AXIS_RX] = joint_moving_axis(def->angular_limit, def->angular_motor, def->angular_spring);
	config.movable = (1u << SN_AXIS_X) | (1u << SN_AXIS_RX);
	return joint_create(world, SN_JOINT_CYLINDRICAL, &def->base, &config, out_id);
}

// ---- six-axis ---------------------------------------------------------------------------------------
// Six-axis (generic, D6-style) joint: each coordinate of joint.h locked, limited or free, with a motor
// and a spring per non-locked axis. Translations are d . a_k in frame A's axes; rotations are the twist
// theta and the swing vector (s_y, s_z), so RY/RZ limits bound a box in swing space. Swing near pi makes
// the twist undefined (r -> 0): keep swing limits well inside (-pi, pi).

sn_six_axis_joint_def sn_default_six_axis_joint_def(void)
{
	sn_six_axis_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		def.axes[a].mode = SN_AXIS_LOCKED;
		def.axes[a].limit_soft = sn_soft_rigid();
		def.axes[a].motor.max_force = INFINITY;
		def.axes[a].spring.soft = sn_soft_stiffness(0.0, 0.0);
		def.axes[a].spring.max_force = INFINITY;
	}
	return def;
}

sn_error sn_create_six_axis_joint(sn_world* world, const sn_six_axis_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create six-axis joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		config.axes[a] = def->axes[a];
		if (def->axes[a].mode != SN_AXIS_LOCKED)
		{
			config.movable |= (uint8_t)(1u << a);
		}
		else if (def->axes[a].motor.enabled || def->axes[a].spring.enabled)
		{
			return world_fail(world, SN_ERR_INVALID_ARGUMENT,
							  "create six-axis joint: axis %d is locked, so it cannot have a motor or spring", a);
		}
	}
	return joint_create(world, SN_JOINT_SIX_AXIS, &def->base, &config, out_id);
}
