// Six-axis (generic, D6-style) joint: each coordinate of joint.h locked, limited or free, with a motor
// and a spring per non-locked axis. Translations are d . a_k in frame A's axes; rotations are the twist
// theta and the swing vector (s_y, s_z), so RY/RZ limits bound a box in swing space. Swing near pi makes
// the twist undefined (r -> 0): keep swing limits well inside (-pi, pi).
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

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
