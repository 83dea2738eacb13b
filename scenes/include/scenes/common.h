// What every scene family shares: the world def the scenes assume and the joint frame rotations.
#ifndef SINEW_SCENES_COMMON_H
#define SINEW_SCENES_COMMON_H

#include "sinew/sinew.h"

#ifdef __cplusplus
extern "C" {
#endif

// Gravity of every scene, m/s^2 (along -z).
#define SCENE_GRAVITY 9.81

// The default world def with this solver and time step (s) and gravity (0, 0, -SCENE_GRAVITY).
sn_world_def scene_world_def(sn_solver solver, double dt);

// Rotations that turn a joint frame's x axis (the joint axis) onto world y and onto world z.
sn_quat scene_x_to_y(void);
sn_quat scene_x_to_z(void);

#ifdef __cplusplus
}
#endif

#endif
