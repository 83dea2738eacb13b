#include "scenes/bodies.h"

sn_vec3 scene_thrown_gravity(void)
{
	return sn_v3(0.3, -0.2, -9.81);
}

sn_body_def scene_thrown_body_def(void)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(1.0, 2.0, 3.0);
	bd.linear_velocity = sn_v3(1.0, -0.5, 2.0);
	bd.center_of_mass = sn_v3(0.1, 0.0, -0.2);
	return bd;
}

sn_error scene_thrown_body(sn_world* world, sn_body_id* body)
{
	sn_body_def bd = scene_thrown_body_def();
	return sn_create_body(world, &bd, body);
}

sn_body_def scene_dzhanibekov_body_def(void)
{
	sn_body_def bd = sn_default_body_def();
	bd.inertia = sn_mat33_diag(1.0, 2.0, 3.0);
	bd.pose.q = sn_quat_from_axis_angle(sn_normalize(sn_v3(1, 2, 3)), 0.7);
	bd.angular_velocity = sn_rotate(bd.pose.q, sn_v3(0.1, 3.0, 0.1));
	return bd;
}

sn_error scene_dzhanibekov_body(sn_world* world, sn_body_id* body)
{
	sn_body_def bd = scene_dzhanibekov_body_def();
	return sn_create_body(world, &bd, body);
}
