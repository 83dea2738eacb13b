#include "scenes/common.h"

sn_world_def scene_world_def(sn_solver solver, double dt)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.gravity = sn_v3(0, 0, -SCENE_GRAVITY);
	return wd;
}

sn_quat scene_x_to_y(void)
{
	return sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
}

sn_quat scene_x_to_z(void)
{
	return sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI);
}
