// Joint errors from the public API (measure.h).
#include "scenes/measure.h"

#include <math.h>

static sn_transform joint_frame_world(const sn_world* world, sn_joint_id j, bool side_b)
{
	sn_transform f = side_b ? sn_joint_get_frame_b(world, j) : sn_joint_get_frame_a(world, j);
	sn_body_id b = side_b ? sn_joint_get_body_b(world, j) : sn_joint_get_body_a(world, j);
	return sn_body_id_is_null(b) ? f : sn_transform_mul(sn_body_get_pose(world, b), f);
}

double scene_joints_max_anchor_gap(const sn_world* world, const sn_joint_id* joints, int count)
{
	double worst = 0.0;
	for (int i = 0; i < count; ++i)
	{
		sn_vec3 pa = joint_frame_world(world, joints[i], false).p;
		sn_vec3 pb = joint_frame_world(world, joints[i], true).p;
		double e = sn_length(sn_sub(pb, pa));
		worst = e > worst ? e : worst;
	}
	return worst;
}

double scene_joints_max_axis_error(const sn_world* world, const sn_joint_id* joints, int count)
{
	double worst = 0.0;
	for (int i = 0; i < count; ++i)
	{
		sn_vec3 xa = sn_rotate(joint_frame_world(world, joints[i], false).q, sn_v3(1, 0, 0));
		sn_vec3 xb = sn_rotate(joint_frame_world(world, joints[i], true).q, sn_v3(1, 0, 0));
		double e = atan2(sn_length(sn_cross(xa, xb)), sn_dot(xa, xb));
		worst = e > worst ? e : worst;
	}
	return worst;
}

unsigned scene_locked_axes(sn_joint_type type)
{
	const unsigned lin = (1u << SN_AXIS_X) | (1u << SN_AXIS_Y) | (1u << SN_AXIS_Z);
	const unsigned swing = (1u << SN_AXIS_RY) | (1u << SN_AXIS_RZ);
	switch (type)
	{
		case SN_JOINT_FIXED:
			return lin | swing | (1u << SN_AXIS_RX);
		case SN_JOINT_HINGE:
			return lin | swing;
		case SN_JOINT_PRISMATIC:
			return (1u << SN_AXIS_Y) | (1u << SN_AXIS_Z) | swing | (1u << SN_AXIS_RX);
		case SN_JOINT_CYLINDRICAL:
			return (1u << SN_AXIS_Y) | (1u << SN_AXIS_Z) | swing;
		case SN_JOINT_SPHERICAL:
			return lin;
		case SN_JOINT_SIX_AXIS:
			return lin | (1u << SN_AXIS_RX);
		default:
			return 0;
	}
}

scene_joint_error scene_joint_locked_error(const sn_world* world, sn_joint_id joint, sn_joint_type type,
										   double distance_rest_length)
{
	scene_joint_error e = { 0.0, 0.0 };
	if (type == SN_JOINT_DISTANCE)
	{
		e.linear = fabs(sn_joint_get_coordinate(world, joint, SN_AXIS_X) - distance_rest_length);
		return e;
	}
	unsigned locked = scene_locked_axes(type);
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		if (locked & (1u << a))
		{
			double v = fabs(sn_joint_get_coordinate(world, joint, (sn_axis)a));
			if (a < SN_AXIS_RX)
			{
				e.linear = fmax(e.linear, v);
			}
			else
			{
				e.angular = fmax(e.angular, v);
			}
		}
	}
	return e;
}
