// Sinew scenes: the worlds that tests and benchmarks build, in one place (as Box2D's shared/), so a scene
// named in a test, a benchmark and the solver conformance matrix is the same scene, bit for bit.
//
// Families, one header each (this one includes them all), on common.h (the world def, joint frame rotations):
//   bodies.h          free rigid bodies: a thrown body, a body spinning near its intermediate axis
//   joints.h          maximal-coordinate joints: pendulums, chains of every joint type, the sheet of
//                     hinge loops, limits, motors, loads and breakable joints
//   articulations.h   reduced-coordinate articulations: pendulum, hanging chain, the driven 7-link arm
//   contacts.h        shapes and contacts: the contact benchmark scenes C1..C8, a box resting, on an
//                     incline, sliding, a ball dropped, the gripper lifting a box
//   contact_runs.h    runs of the contact scenes: build, step and measure each, the figures the tests, the
//                     conformance matrix and bench_contacts share (the one family that reads a clock: the
//                     time in the step calls is one of its figures)
//   measure.h         joint errors read from the public API (anchor gaps, axis misalignment, locked axes)
// A new family adds a header and a source file here and a line below.
//
// Conventions. A builder adds its objects to a world the caller created (scene_world_def gives the def the
// scenes assume: gravity (0, 0, -9.81) m/s^2, the given solver and step, everything else at the
// defaults), writes their ids into arrays the caller owns, and returns SN_ERR_OK or the first error of
// the core (what it created until then stays in the world: destroy the world). Builders keep no state
// and read no clock (a builder may allocate scratch it frees before returning): benchmarks time, tests
// assert, scenes only build. The runners of contact_runs.h are the exception that shares the measuring:
// they build, step and measure, time the step calls and never assert. Lengths in m, masses in kg, angles in rad, as in the core.
#ifndef SINEW_SCENES_H
#define SINEW_SCENES_H

#include "sinew/sinew.h"

#include "scenes/articulations.h"
#include "scenes/bodies.h"
#include "scenes/common.h"
#include "scenes/contact_runs.h"
#include "scenes/contacts.h"
#include "scenes/joints.h"
#include "scenes/measure.h"

#endif
