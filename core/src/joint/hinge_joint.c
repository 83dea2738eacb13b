// Hinge (revolute) joint: the anchors coincide (three linear locks, C_k = d . a_k) and the swing of
// frame B about frame A is locked (C = s_y, s_z); the twist theta about frame x is free and carries
// the limit, motor and spring. theta = 2 atan2(q_x, q_w) with dtheta = (1, z'/r, -y'/r) . W (joint.h),
// which is the hinge axis itself while the swing locks hold.
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

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
