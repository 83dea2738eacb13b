// Sinew core (libsinew): the solver core of the Sinew physics server. Include this one header.
//
//   sn_world_def def = sn_default_world_def();
//   sn_world* world;
//   sn_world_create(&def, &world);
//   sn_body_def body = sn_default_body_def();
//   body.pose.p = sn_v3(0, 0, -1);
//   sn_body_id bob;
//   sn_create_body(world, &body, &bob);
//   sn_hinge_joint_def hinge = sn_default_hinge_joint_def();
//   hinge.base.body_b = bob;                 // body_a null: jointed to the world
//   hinge.base.frame_b.p = sn_v3(0, 0, 1);   // pivot 1 m above the bob
//   sn_joint_id pivot;
//   sn_create_hinge_joint(world, &hinge, &pivot);
//   for (int i = 0; i < 1000; ++i) sn_world_step(world);
//   sn_world_destroy(world);
#ifndef SINEW_SINEW_H
#define SINEW_SINEW_H

#include "sinew/articulation.h"
#include "sinew/base.h"
#include "sinew/body.h"
#include "sinew/collision.h"
#include "sinew/id.h"
#include "sinew/joint.h"
#include "sinew/math.h"
#include "sinew/shape.h"
#include "sinew/types.h"
#include "sinew/world.h"

#endif
