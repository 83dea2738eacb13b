// The demo world's scene: the demo arm picks a box from a table and places it at the table's other site,
// then picks it there and brings it back, forever (see demo_scene.h).
//
// The scene (m, kg; z up, the arm's base at the origin):
//   ground  the plane z = 0 (a shape of the world); the arm's base, bolted to it, does not collide with it
//   table   a static body at (0.55, 0, 0): a top 0.4 x 0.8 x 0.04 whose upper face is at z = 0.30, on four
//           legs 0.04 x 0.04 x 0.26
//   box     a 0.05 m cube of 0.2 kg (about 1600 kg/m^3, a full carton), resting at site 0, (0.55, 0.2,
//           0.325), square to the line from the arm's axis; site 1 is (0.55, -0.2, 0.325)
//   arm     models/sinew_arm.urdf with its collision geometry, fixed at the origin; default materials
//           everywhere (friction 0.6, restitution 0)
//
// The controller is a small state machine over joint-space waypoints, solved once when the scene is built
// (solve_pose: damped least squares on the tool frame's pose as the core computes it, Jacobians by finite
// differences of sn_articulation_get_link_pose). Per site and grip, three poses of the tool (the frame
// between the fingertips, z along the fingers), pointing straight down:
//   above  0.15 m above the grasp pose
//   grasp  the fingertips 0.01 m above the table at the site, the box between the fingers: the fingertips'
//          pads (their last 0.03 m) press on the box's sides below its top edge
//   place  the grasp pose 2 mm higher: a box held where it was grasped is let go just above the table
// Two grips: the fingers close along the line from the arm's axis to the site (grip 0), or square to it
// (grip 1). Cycle k (from 0) carries the box from site k mod 2 to the other, with grip k mod 2, in stages:
//   descend 1 s above -> grasp (gripper open)     close   0.3 s (fingers close on the box)
//   lift    1 s grasp -> above                     carry   2 s above -> above of the other site
//   lower   1 s above -> place                     open    0.3 s (fingers let go)
//   retreat 1 s place -> above with the next grip (gripper open, the hand turning a quarter as it rises):
//           above the box again, where the next cycle starts
// 6.6 s in all. Between waypoints every arm joint follows the quintic with zero speed and acceleration at
// both ends, q0 + (q1 - q0)(10 s^3 - 15 s^4 + 6 s^5), s = elapsed / duration, its target given with its
// velocity. The stage is a function of world time alone (demo_scene_phase_at), so the controller keeps no
// state: a reset or a restored snapshot brings its time and the motion with it.
//
// Why the grips alternate: the fingers centre the box along the axis they close on, never along their pads.
// A box carried around the arm's axis creeps outwards in the fingers (about 0.15 mm per carry with the
// fingers closing across that line, 10 times less along it), and a creep along the pads would add up from
// cycle to cycle until the box left the pads. Turning the grip a quarter each cycle, the fingers centre
// what the last carry left along the pads: the place error stays below 1 mm for as long as the demo runs.
//
// Drives. The arm joints: acceleration drives of stiffness 40000 1/s^2 and damping 400 1/s (critically
// damped at 200 rad/s), force limited by the URDF effort. At the generic motion's 2500 1/s^2 the arm sagged
// 10 mm under gravity at the grasp pose (an acceleration drive's stiffness is the dof's own response
// times the gain, and a shoulder whose outer joints are free responds as a light one), which put the
// fingertips on the table; at 40000 1/s^2 the tool stays within 1 mm of its target. The gripper: a force
// drive (stiffness 4000 N/m, damping 40 N*s/m: critically damped for the two fingers' 0.1 kg, which the
// mimic row moves together) limited to the URDF effort, 40 N, and the speed of its <limit velocity> (0.2
// m/s). Closed, its target is the fingers shut (0 m), beyond the box's sides, so the drive saturates and
// squeezes with its force limit: through the mimic row each finger presses with half of it, 20 N, and
// friction can carry 2 x 0.6 x 20 N = 24 N against the box's 2 N weight. Open, its target is its upper
// limit (0.04 m): 0.015 m of room on each side of the box.
#include "demo_scene.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- the scene's numbers --------------------------------------------------------------------------------

static const double table_x = 0.55;          // m, centre of the table
static const double table_half_x = 0.2;      // m
static const double table_half_y = 0.4;      // m
static const double table_top = 0.30;        // m, height of its upper face
static const double table_thickness = 0.04;  // m, of its top
static const double table_leg_half = 0.02;   // m, half the side of a leg
static const double box_half = 0.025;        // m
static const double box_mass = 0.2;          // kg
static const double site_y = 0.2;            // m: the sites are at y = +site_y (0) and -site_y (1)
static const double grasp_clearance = 0.01;  // m, fingertips above the table at the grasp
static const double place_clearance = 0.002; // m, the place pose above the grasp pose
static const double hover = 0.15;            // m, the above pose over the grasp pose

static const double arm_stiffness = 40000.0;   // 1/s^2
static const double arm_damping = 400.0;       // 1/s
static const double finger_stiffness = 4000.0; // N/m
static const double finger_damping = 40.0;     // N*s/m
static const double finger_closed = 0.0;       // m

// Sleeping (the box at rest on the table between cycles, a third of the time, costs nothing): the cycles
// are the same with it on (measured over 120 s: the same 18 places within 1 mm, and 272 of 272 in 1800 s),
// and sinewd sleeps real-time worlds by default anyway.
static const bool demo_sleeping = true;

static const char* const arm_joint_names[DEMO_ARM_JOINTS] = { "joint1", "joint2", "joint3", "joint4",
															  "joint5", "joint6", "joint7" };
static const char* const finger_joint_name = "finger_left_joint";
static const char* const tool_link_name = "tool";

// Collision categories: the ground, and the arm's base, which is bolted to it: the two never collide (their
// contact could do nothing, the base being welded to the world).
static const uint64_t ground_category = 2;
static const uint64_t base_category = 4;

// ---- the schedule ---------------------------------------------------------------------------------------

typedef enum pose_kind
{
	POSE_ABOVE = 0,
	POSE_GRASP = 1,
	POSE_PLACE = 2,
	POSE_KIND_COUNT
} pose_kind;

// Which site a waypoint is at: the one the box is picked from, or the one it is placed at.
typedef enum site_role
{
	SITE_PICK = 0,
	SITE_PLACE = 1,
} site_role;

// A waypoint of a stage: a pose kind at the site the box is picked from or placed at, with this cycle's
// grip or the next one's (the turn of a quarter between them is made while the hand rises, see the top).
typedef struct waypoint
{
	pose_kind kind;
	site_role site;
	int next_cycle; // 0: this cycle's grip, 1: the next cycle's
} waypoint;

typedef struct stage_def
{
	double seconds;
	waypoint from;
	waypoint to;
	bool closed; // the gripper's target: shut (squeezing) or open
} stage_def;

// In demo_stage order (DEMO_STAGES).
static const stage_def stages[DEMO_STAGE_COUNT] = {
	{ 1.0, { POSE_ABOVE, SITE_PICK, 0 }, { POSE_GRASP, SITE_PICK, 0 }, false },   // descend
	{ 0.3, { POSE_GRASP, SITE_PICK, 0 }, { POSE_GRASP, SITE_PICK, 0 }, true },    // close
	{ 1.0, { POSE_GRASP, SITE_PICK, 0 }, { POSE_ABOVE, SITE_PICK, 0 }, true },    // lift
	{ 2.0, { POSE_ABOVE, SITE_PICK, 0 }, { POSE_ABOVE, SITE_PLACE, 0 }, true },   // carry
	{ 1.0, { POSE_ABOVE, SITE_PLACE, 0 }, { POSE_PLACE, SITE_PLACE, 0 }, true },  // lower
	{ 0.3, { POSE_PLACE, SITE_PLACE, 0 }, { POSE_PLACE, SITE_PLACE, 0 }, false }, // open
	{ 1.0, { POSE_PLACE, SITE_PLACE, 0 }, { POSE_ABOVE, SITE_PLACE, 1 }, false }, // retreat
};

static const char* const stage_names[DEMO_STAGE_COUNT] = {
#define DEMO_STAGE_NAME_(name, text) text,
	DEMO_STAGES(DEMO_STAGE_NAME_)
#undef DEMO_STAGE_NAME_
};

const char* demo_stage_name(demo_stage stage)
{
	return (stage >= 0 && stage < DEMO_STAGE_COUNT) ? stage_names[stage] : "unknown";
}

double demo_scene_cycle_seconds(void)
{
	double total = 0.0;
	for (int i = 0; i < DEMO_STAGE_COUNT; ++i)
	{
		total += stages[i].seconds;
	}
	return total;
}

demo_phase demo_scene_phase_at(double time)
{
	double period = demo_scene_cycle_seconds();
	double t = time > 0.0 ? time : 0.0;
	demo_phase p = { (long)floor(t / period), DEMO_STAGE_COUNT - 1, 0.0, 0.0 };
	double begin = (double)p.cycle * period;
	for (int i = 0; i < DEMO_STAGE_COUNT; ++i)
	{
		double end = begin + stages[i].seconds;
		// The last stage takes what rounding leaves of the cycle.
		if (t < end || i == DEMO_STAGE_COUNT - 1)
		{
			p.stage = (demo_stage)i;
			p.stage_begin = begin;
			p.stage_end = i == DEMO_STAGE_COUNT - 1 ? (double)(p.cycle + 1) * period : end;
			break;
		}
		begin = end;
	}
	return p;
}

// ---- the scene ------------------------------------------------------------------------------------------

struct demo_scene
{
	sn_articulation_id arm;
	int tool_link;                                        // articulation link that carries the tool frame
	sn_transform tool_offset;                             // the tool frame in that link's frame
	int dof_count;                                        // of the articulation (the mimic follower's included)
	int dofs[DEMO_ARM_JOINTS + 1];                        // the arm joints' dofs, then the gripper's
	int follower_dof;                                     // finger_right_joint's
	double finger_open;                                   // m
	double poses[2][2][POSE_KIND_COUNT][DEMO_ARM_JOINTS]; // [site][grip][kind]: rad
	sn_body_id box;
	sn_vec3 sites[2];
	// Scratch for the targets of one step.
	double positions[DEMO_ARM_JOINTS + 1];
	double velocities[DEMO_ARM_JOINTS + 1];
};

sn_body_id demo_scene_box(const demo_scene* scene)
{
	return scene->box;
}

sn_vec3 demo_scene_site(const demo_scene* scene, int site)
{
	return scene->sites[site != 0];
}

double demo_scene_box_half(void)
{
	return box_half;
}

sn_articulation_id demo_scene_arm(const demo_scene* scene)
{
	return scene->arm;
}

sn_transform demo_scene_tool_pose(const demo_scene* scene, const sn_world* world)
{
	return sn_transform_mul(sn_articulation_get_link_pose(world, scene->arm, scene->tool_link), scene->tool_offset);
}

// ---- the controller -------------------------------------------------------------------------------------

// Quintic blend: position and rate (1/s) factors of the way from one waypoint to the next.
static void blend(double elapsed, double duration, double* s, double* ds)
{
	double u = fmin(fmax(elapsed / duration, 0.0), 1.0);
	*s = u * u * u * (10.0 + u * (-15.0 + 6.0 * u));
	*ds = 30.0 * u * u * (1.0 - u) * (1.0 - u) / duration;
}

void demo_scene_drive(void* context, sn_world* world)
{
	demo_scene* d = context;
	double t = sn_world_get_time(world) + sn_world_get_time_step(world);
	demo_phase p = demo_scene_phase_at(t);
	const stage_def* st = &stages[p.stage];
	int pick = (int)(p.cycle % 2);
	int sites[2] = { pick, 1 - pick }; // by site_role
	// Cycle k grips the box square to the line from the arm's axis (grip 0) when k is even, a quarter
	// turn from it (grip 1) when k is odd.
	const double* from = d->poses[sites[st->from.site]][(p.cycle + st->from.next_cycle) % 2][st->from.kind];
	const double* to = d->poses[sites[st->to.site]][(p.cycle + st->to.next_cycle) % 2][st->to.kind];
	double s, ds;
	blend(t - p.stage_begin, p.stage_end - p.stage_begin, &s, &ds);
	for (int i = 0; i < DEMO_ARM_JOINTS; ++i)
	{
		d->positions[i] = from[i] + (to[i] - from[i]) * s;
		d->velocities[i] = (to[i] - from[i]) * ds;
	}
	d->positions[DEMO_ARM_JOINTS] = st->closed ? finger_closed : d->finger_open;
	d->velocities[DEMO_ARM_JOINTS] = 0.0;
	// Fails only if the articulation is gone (a restored snapshot without it): then there is nothing to move.
	(void)sn_articulation_set_drive_targets(world, d->arm, d->dofs, d->positions, d->velocities, DEMO_ARM_JOINTS + 1);
}

void demo_scene_hold(void* context, sn_world* world)
{
	demo_scene* d = context;
	for (int i = 0; i < DEMO_ARM_JOINTS; ++i)
	{
		d->positions[i] = sn_articulation_get_joint_position(world, d->arm, d->dofs[i]);
		d->velocities[i] = 0.0;
	}
	(void)sn_articulation_set_drive_targets(world, d->arm, d->dofs, d->positions, d->velocities, DEMO_ARM_JOINTS);
}

// ---- inverse kinematics ---------------------------------------------------------------------------------

// The rotation vector of a unit quaternion (rad), the shorter way round.
static sn_vec3 rotation_vector(sn_quat q)
{
	if (q.w < 0.0)
	{
		q = (sn_quat){ -q.x, -q.y, -q.z, -q.w };
	}
	sn_vec3 v = sn_v3(q.x, q.y, q.z);
	double s = sn_length(v);
	if (s < 1e-12)
	{
		return sn_scale(2.0, v);
	}
	return sn_scale(2.0 * atan2(s, q.w) / s, v);
}

// Put the arm at q (the gripper at q_finger, its follower with it) and read the tool frame.
static sn_transform tool_at(demo_scene* d, sn_world* world, const double* q, double q_finger, double* all)
{
	for (int i = 0; i < d->dof_count; ++i)
	{
		all[i] = 0.0;
	}
	for (int i = 0; i < DEMO_ARM_JOINTS; ++i)
	{
		all[d->dofs[i]] = q[i];
	}
	all[d->dofs[DEMO_ARM_JOINTS]] = q_finger;
	all[d->follower_dof] = q_finger;
	(void)sn_articulation_set_joint_positions(world, d->arm, all, d->dof_count);
	return demo_scene_tool_pose(d, world);
}

// The tool's error from the target: position (m) and rotation vector (rad), world.
static void pose_error(sn_transform target, sn_transform now, double e[6])
{
	sn_vec3 dp = sn_sub(target.p, now.p);
	sn_vec3 dr = rotation_vector(sn_quat_mul(target.q, sn_quat_conj(now.q)));
	e[0] = dp.x;
	e[1] = dp.y;
	e[2] = dp.z;
	e[3] = dr.x;
	e[4] = dr.y;
	e[5] = dr.z;
}

// Solve A x = b for a symmetric positive definite 6 x 6 A (Cholesky, in place).
static void solve6(double a[6][6], double b[6])
{
	for (int j = 0; j < 6; ++j)
	{
		for (int k = 0; k < j; ++k)
		{
			a[j][j] -= a[j][k] * a[j][k];
		}
		a[j][j] = sqrt(a[j][j]);
		for (int i = j + 1; i < 6; ++i)
		{
			for (int k = 0; k < j; ++k)
			{
				a[i][j] -= a[i][k] * a[j][k];
			}
			a[i][j] /= a[j][j];
		}
	}
	for (int i = 0; i < 6; ++i)
	{
		for (int k = 0; k < i; ++k)
		{
			b[i] -= a[i][k] * b[k];
		}
		b[i] /= a[i][i];
	}
	for (int i = 5; i >= 0; --i)
	{
		for (int k = i + 1; k < 6; ++k)
		{
			b[i] -= a[k][i] * b[k];
		}
		b[i] /= a[i][i];
	}
}

// Damped least squares (Wampler 1986; Buss, "Introduction to inverse kinematics with Jacobian transpose,
// pseudoinverse and damped least squares methods", 2004): dq = J^T (J J^T + lambda^2 I)^-1 e, the tool's
// 6 x 7 Jacobian J by finite differences of the core's forward kinematics, steps of at most 0.2 rad per
// joint, joints kept inside their limits. From a seed near the answer it converges in tens of iterations;
// the result must meet the target within 1e-6 m and 1e-5 rad.
static bool solve_pose(demo_scene* d, sn_world* world, sn_transform target, const double* seed, const double* lower,
					   const double* upper, double* q, double* all, double* residual_m, double* residual_rad)
{
	const double lambda = 0.02, eps = 1e-7, max_step = 0.2;
	memcpy(q, seed, sizeof(double) * DEMO_ARM_JOINTS);
	double e[6];
	for (int iteration = 0; iteration < 200; ++iteration)
	{
		sn_transform now = tool_at(d, world, q, d->finger_open, all);
		pose_error(target, now, e);
		*residual_m = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
		*residual_rad = sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]);
		if (*residual_m < 1e-9 && *residual_rad < 1e-8)
		{
			break;
		}
		double jac[6][DEMO_ARM_JOINTS];
		for (int j = 0; j < DEMO_ARM_JOINTS; ++j)
		{
			double saved = q[j];
			q[j] += eps;
			sn_transform moved = tool_at(d, world, q, d->finger_open, all);
			q[j] = saved;
			sn_vec3 dp = sn_scale(1.0 / eps, sn_sub(moved.p, now.p));
			sn_vec3 dr = sn_scale(1.0 / eps, rotation_vector(sn_quat_mul(moved.q, sn_quat_conj(now.q))));
			jac[0][j] = dp.x;
			jac[1][j] = dp.y;
			jac[2][j] = dp.z;
			jac[3][j] = dr.x;
			jac[4][j] = dr.y;
			jac[5][j] = dr.z;
		}
		double a[6][6];
		for (int r = 0; r < 6; ++r)
		{
			for (int c = 0; c < 6; ++c)
			{
				double sum = r == c ? lambda * lambda : 0.0;
				for (int j = 0; j < DEMO_ARM_JOINTS; ++j)
				{
					sum += jac[r][j] * jac[c][j];
				}
				a[r][c] = sum;
			}
		}
		solve6(a, e);
		double dq[DEMO_ARM_JOINTS], largest = 0.0;
		for (int j = 0; j < DEMO_ARM_JOINTS; ++j)
		{
			dq[j] = 0.0;
			for (int r = 0; r < 6; ++r)
			{
				dq[j] += jac[r][j] * e[r];
			}
			largest = fmax(largest, fabs(dq[j]));
		}
		double scale = largest > max_step ? max_step / largest : 1.0;
		for (int j = 0; j < DEMO_ARM_JOINTS; ++j)
		{
			q[j] = fmin(fmax(q[j] + scale * dq[j], lower[j]), upper[j]);
		}
	}
	pose_error(target, tool_at(d, world, q, d->finger_open, all), e);
	*residual_m = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
	*residual_rad = sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]);
	return *residual_m < 1e-6 && *residual_rad < 1e-5;
}

// ---- building -------------------------------------------------------------------------------------------

static sn_error failf(char* detail, size_t capacity, sn_error code, const char* format, ...)
	__attribute__((format(printf, 4, 5)));

static sn_error failf(char* detail, size_t capacity, sn_error code, const char* format, ...)
{
	if (detail != NULL && capacity > 0)
	{
		va_list args;
		va_start(args, format);
		vsnprintf(detail, capacity, format, args);
		va_end(args);
	}
	return code;
}

static sn_error add_box_shape(sn_world* world, sn_body_id body, sn_vec3 center, sn_vec3 half)
{
	sn_shape_def sd = sn_default_shape_def();
	sd.body = body;
	sd.local_pose = sn_transform_identity();
	sd.local_pose.p = center;
	sd.geometry = sn_geometry_box(half);
	sn_shape_id id;
	return sn_create_shape(world, &sd, &id);
}

// The box's turn about the vertical at a site (rad): its faces square to the line from the arm's axis to
// the site, which the fingers close along (the tool's y axis is world y turned by this angle minus a right
// angle, which a cube does not tell from the line itself).
static double site_yaw(sn_vec3 site)
{
	return atan2(site.y, site.x) - 0.5 * SN_PI;
}

// Ground, table and box.
static sn_error build_props(sn_world* world, demo_scene* d)
{
	sn_shape_def ground = sn_default_shape_def();
	ground.geometry = sn_geometry_plane(sn_v3(0.0, 0.0, 1.0), 0.0);
	ground.filter.category = ground_category;
	ground.filter.mask = ~base_category;
	sn_shape_id ground_id;
	sn_error err = sn_create_shape(world, &ground, &ground_id);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_body_def table = sn_default_body_def();
	table.type = SN_BODY_STATIC;
	table.pose.p = sn_v3(table_x, 0.0, 0.0);
	sn_body_id table_id;
	if ((err = sn_create_body(world, &table, &table_id)) != SN_ERR_OK)
	{
		return err;
	}
	double leg_height = table_top - table_thickness;
	err = add_box_shape(world, table_id, sn_v3(0.0, 0.0, table_top - 0.5 * table_thickness),
						sn_v3(table_half_x, table_half_y, 0.5 * table_thickness));
	for (int i = 0; i < 4 && err == SN_ERR_OK; ++i)
	{
		double x = (i & 1 ? 1.0 : -1.0) * (table_half_x - 2.0 * table_leg_half);
		double y = (i & 2 ? 1.0 : -1.0) * (table_half_y - 2.0 * table_leg_half);
		err = add_box_shape(world, table_id, sn_v3(x, y, 0.5 * leg_height),
							sn_v3(table_leg_half, table_leg_half, 0.5 * leg_height));
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	d->sites[0] = sn_v3(table_x, site_y, table_top + box_half);
	d->sites[1] = sn_v3(table_x, -site_y, table_top + box_half);
	sn_body_def box = sn_default_body_def();
	box.pose.p = d->sites[0];
	box.pose.q = sn_quat_from_axis_angle(sn_v3(0.0, 0.0, 1.0), site_yaw(d->sites[0]));
	box.mass = box_mass;
	box.inertia = sn_inertia_box(box_mass, sn_v3(box_half, box_half, box_half));
	if ((err = sn_create_body(world, &box, &d->box)) != SN_ERR_OK)
	{
		return err;
	}
	return add_box_shape(world, d->box, sn_v3(0.0, 0.0, 0.0), sn_v3(box_half, box_half, box_half));
}

// The arm's drives (by URDF joint name).
static int arm_drives(snm_drive_gains* drives)
{
	for (int i = 0; i < DEMO_ARM_JOINTS; ++i)
	{
		drives[i].joint = arm_joint_names[i];
		drives[i].drive = sn_default_drive();
		drives[i].drive.enabled = true;
		drives[i].drive.type = SN_DRIVE_ACCELERATION;
		drives[i].drive.stiffness = arm_stiffness;
		drives[i].drive.damping = arm_damping;
		drives[i].max_force_from_effort = true;
	}
	snm_drive_gains* g = &drives[DEMO_ARM_JOINTS];
	g->joint = finger_joint_name;
	g->drive = sn_default_drive();
	g->drive.enabled = true;
	g->drive.type = SN_DRIVE_FORCE;
	g->drive.stiffness = finger_stiffness;
	g->drive.damping = finger_damping;
	g->max_force_from_effort = true;
	return DEMO_ARM_JOINTS + 1;
}

// Find the arm's joints and the tool in what the build made.
static sn_error map_arm(const snm_model* model, const snm_build_result* built, demo_scene* d, sn_world* world,
						char* detail, size_t capacity)
{
	d->arm = built->articulation;
	d->dof_count = sn_articulation_get_dof_count(world, d->arm);
	for (int i = 0; i <= DEMO_ARM_JOINTS; ++i)
	{
		const char* name = i < DEMO_ARM_JOINTS ? arm_joint_names[i] : finger_joint_name;
		int j = snm_model_find_joint(model, name);
		if (j < 0 || built->joint_dof[j] < 0)
		{
			return failf(detail, capacity, SN_ERR_INVALID_ARGUMENT, "the demo arm has no joint %s", name);
		}
		d->dofs[i] = built->joint_dof[j];
	}
	int finger = snm_model_find_joint(model, finger_joint_name);
	int follower = -1;
	for (int j = 0; j < model->joint_count; ++j)
	{
		if (model->joints[j].mimic == finger && built->joint_dof[j] >= 0)
		{
			follower = built->joint_dof[j];
		}
	}
	int tool = snm_model_find_link(model, tool_link_name);
	if (follower < 0 || tool < 0 || built->link_index[tool] < 0)
	{
		return failf(detail, capacity, SN_ERR_INVALID_ARGUMENT, "the demo arm has no %s",
					 follower < 0 ? "mimic follower of finger_left_joint" : "tool link");
	}
	d->follower_dof = follower;
	d->tool_link = built->link_index[tool];
	d->tool_offset = built->link_offset[tool];
	d->finger_open = model->joints[finger].upper;
	// The base's shapes (those of the articulation's link 0) do not collide with the ground.
	for (int i = 0; i < built->shape_count; ++i)
	{
		if (built->link_index[model->collisions[built->shape_collision[i]].link] == 0)
		{
			sn_filter f = sn_shape_get_filter(world, built->shapes[i]);
			f.category = base_category;
			sn_error err = sn_shape_set_filter(world, built->shapes[i], f);
			if (err != SN_ERR_OK)
			{
				return failf(detail, capacity, err, "the demo arm's base: %s", sn_world_last_error_detail(world));
			}
		}
	}
	return SN_ERR_OK;
}

// Solve the waypoints: per site, above, grasp and place, each from the one before as the seed.
static sn_error solve_waypoints(sn_world* world, demo_scene* d, char* detail, size_t capacity)
{
	double lower[DEMO_ARM_JOINTS], upper[DEMO_ARM_JOINTS];
	for (int i = 0; i < DEMO_ARM_JOINTS; ++i)
	{
		sn_limit l = sn_articulation_get_limit(world, d->arm, d->dofs[i]);
		lower[i] = l.enabled ? l.lower : -SN_PI;
		upper[i] = l.enabled ? l.upper : SN_PI;
	}
	double* all = calloc((size_t)d->dof_count, sizeof(double));
	if (all == NULL)
	{
		return failf(detail, capacity, SN_ERR_NO_MEMORY, "out of memory");
	}
	// The tool points down (half a turn about y), then turns about the vertical so that its fingers close
	// along the line from the arm's axis to the site (see build_props).
	sn_quat down = sn_quat_from_axis_angle(sn_v3(0.0, 1.0, 0.0), SN_PI);
	const double heights[POSE_KIND_COUNT] = { grasp_clearance + hover, grasp_clearance,
											  grasp_clearance + place_clearance };
	sn_error err = SN_ERR_OK;
	for (int site = 0; site < 2 && err == SN_ERR_OK; ++site)
	{
		for (int grip = 0; grip < 2 && err == SN_ERR_OK; ++grip)
		{
			// Seed: turned towards the site, leaning over it, the elbow up, the wrist bent down and turned
			// by the grip's quarter.
			double seed[DEMO_ARM_JOINTS] = {
				atan2(d->sites[site].y, d->sites[site].x), 0.3, 0.0, 1.3, 0.0, 1.5, grip == 0 ? 0.0 : -0.5 * SN_PI
			};
			double turn = site_yaw(d->sites[site]) + (grip == 0 ? 0.0 : 0.5 * SN_PI);
			sn_quat yaw = sn_quat_from_axis_angle(sn_v3(0.0, 0.0, 1.0), turn);
			for (int k = 0; k < POSE_KIND_COUNT; ++k)
			{
				sn_transform target = { sn_v3(d->sites[site].x, d->sites[site].y, table_top + heights[k]),
										sn_quat_mul(yaw, down) };
				double m, rad;
				if (!solve_pose(d, world, target, seed, lower, upper, d->poses[site][grip][k], all, &m, &rad))
				{
					err = failf(detail, capacity, SN_ERR_INVALID_ARGUMENT,
								"the demo arm cannot reach its pose %d, grip %d at site %d (left %.3g m, %.3g rad)", k,
								grip, site, m, rad);
					break;
				}
				memcpy(seed, d->poses[site][grip][k], sizeof(seed));
			}
		}
	}
	free(all);
	return err;
}

sn_error demo_scene_create(const char* urdf, size_t size, const char* file_name, demo_scene_parts* out, char* detail,
						   size_t detail_capacity)
{
	*out = (demo_scene_parts){ 0 };
	snm_error error;
	sn_error err = snm_parse_urdf(urdf, size, file_name, NULL, &out->model, &error);
	if (err != SN_ERR_OK)
	{
		return failf(detail, detail_capacity, err, "%s", error.text);
	}
	out->scene = calloc(1, sizeof(demo_scene));
	sn_world_def def = sn_default_world_def();
	def.sleep.enabled = demo_sleeping;
	if (out->scene == NULL || sn_world_create(&def, &out->world) != SN_ERR_OK)
	{
		demo_scene_parts_free(out);
		return failf(detail, detail_capacity, SN_ERR_NO_MEMORY, "out of memory");
	}
	demo_scene* d = out->scene;
	if ((err = build_props(out->world, d)) != SN_ERR_OK)
	{
		failf(detail, detail_capacity, err, "the demo's props: %s", sn_world_last_error_detail(out->world));
		demo_scene_parts_free(out);
		return err;
	}
	snm_drive_gains drives[DEMO_ARM_JOINTS + 1];
	snm_build_def bd = snm_default_build_def();
	bd.drives = drives;
	bd.drive_count = arm_drives(drives);
	if ((err = snm_build(out->world, out->model, &bd, &out->robot, &error)) != SN_ERR_OK)
	{
		failf(detail, detail_capacity, err, "%s", error.text);
		demo_scene_parts_free(out);
		return err;
	}
	if ((err = map_arm(out->model, &out->robot, d, out->world, detail, detail_capacity)) != SN_ERR_OK ||
		(err = solve_waypoints(out->world, d, detail, detail_capacity)) != SN_ERR_OK)
	{
		demo_scene_parts_free(out);
		return err;
	}
	// Start above the box, at rest, gripper open, the drives holding there.
	double* all = calloc((size_t)d->dof_count, sizeof(double));
	if (all == NULL)
	{
		demo_scene_parts_free(out);
		return failf(detail, detail_capacity, SN_ERR_NO_MEMORY, "out of memory");
	}
	(void)tool_at(d, out->world, d->poses[0][0][POSE_ABOVE], d->finger_open, all);
	for (int i = 0; i < d->dof_count; ++i)
	{
		all[i] = 0.0;
	}
	err = sn_articulation_set_joint_velocities(out->world, d->arm, all, d->dof_count);
	free(all);
	if (err == SN_ERR_OK)
	{
		memcpy(d->positions, d->poses[0][0][POSE_ABOVE], sizeof(double) * DEMO_ARM_JOINTS);
		d->positions[DEMO_ARM_JOINTS] = d->finger_open;
		err = sn_articulation_set_drive_targets(out->world, d->arm, d->dofs, d->positions, NULL, DEMO_ARM_JOINTS + 1);
	}
	if (err != SN_ERR_OK)
	{
		failf(detail, detail_capacity, err, "the demo arm's start: %s", sn_world_last_error_detail(out->world));
		demo_scene_parts_free(out);
		return err;
	}
	return SN_ERR_OK;
}

void demo_scene_parts_free(demo_scene_parts* parts)
{
	snm_build_result_free(&parts->robot);
	snm_model_destroy(parts->model);
	sn_world_destroy(parts->world);
	free(parts->scene);
	*parts = (demo_scene_parts){ 0 };
}
