// Scenes of free rigid bodies (no joints): what the integrators alone must get right.
#ifndef SINEW_SCENES_BODIES_H
#define SINEW_SCENES_BODIES_H

#include "scenes/common.h"

#ifdef __cplusplus
extern "C" {
#endif

// A body thrown through a world whose gravity has sideways parts: the thrown-body world's gravity
// (m/s^2), and the body's def (1 kg, pose at (1, 2, 3) m, velocity (1, -0.5, 2) m/s, centre of mass at
// (0.1, 0, -0.2) m in its frame, so the frame must follow the falling centre).
sn_vec3 scene_thrown_gravity(void);
sn_body_def scene_thrown_body_def(void);
sn_error scene_thrown_body(sn_world* world, sn_body_id* body);

// A body of inertia diag(1, 2, 3) kg*m^2 turned 0.7 rad about (1, 2, 3), spinning at (0.1, 3, 0.1) rad/s
// in body axes, close to its unstable intermediate axis y (the Dzhanibekov effect): it flips over every
// few seconds. Use a world without gravity.
sn_body_def scene_dzhanibekov_body_def(void);
sn_error scene_dzhanibekov_body(sn_world* world, sn_body_id* body);

#ifdef __cplusplus
}
#endif

#endif
