// XPBD building blocks (Mueller's XPBD joint notes, after Mueller et al. 2020): position and velocity
// corrections between the two bodies of a joint,
// and the blocks Attach, RestrictToAxis, AlignAxes and LimitAngle the joint types are made of. The
// derivation and the sign conventions are at the top of xpbd_blocks.c.
#ifndef SINEW_XPBD_BLOCKS_H
#define SINEW_XPBD_BLOCKS_H

#include "body.h"
#include "joint/joint.h"
#include "constraint/row.h"

// The position pass projects positions; the velocity pass damps soft blocks (the notes' "Velocity Level").
typedef enum xpbd_pass
{
	XPBD_POSITION = 0,
	XPBD_VELOCITY = 1,
} xpbd_pass;

typedef struct xpbd_side
{
	body* b;        // the body, or NULL for the world
	solver_body* s; // its velocities (m/s of the centre of mass, rad/s), world frame
	sn_vec3 com;    // centre of mass, world, m (the anchor for the world side)
	double im;      // inverse mass, 1/kg; 0 unless the body is dynamic
	sn_mat33 ii;    // inverse inertia in the world frame; zero unless the body is dynamic
} xpbd_side;

// Multipliers a joint's blocks accumulate within one substep (N*s^2, or N*m*s^2; vectors in the world
// frame for blocks of more than one direction), so the position pass's two sweeps are one XPBD solve:
// dlambda = (-C - alpha~ lambda) / (w + alpha~) with lambda the sum so far.
enum
{
	XL_ATTACH = 0,     // Attach (3 directions for rest 0, 1 otherwise)
	XL_ALIGN,          // AlignAxes
	XL_TWIST_LOCK,     // LimitAngle(0, 0) of fixed and prismatic joints
	XL_LINE,           // RestrictToAxis as a line lock
	XL_ANGULAR_SPRING, // LimitAngle(target, target): servo or spring
	XL_ANGULAR_MOTOR,  // LimitAngle(start + h speed)
	XL_ANGULAR_LIMIT,  // LimitAngle(lower, upper)
	XL_LINEAR_SPRING,  // the axial part of RestrictToAxis, to a target
	XL_LINEAR_MOTOR,
	XL_LINEAR_LIMIT,
	XL_CONE,           // the circular swing cone
	XL_DISTANCE_LIMIT, // Attach(min or max) of distance joints
	XL_COUNT
};

typedef struct xpbd_lambda
{
	sn_vec3 block[XL_COUNT];
	double row[JOINT_SLOTS]; // the generic rows, by warm-start slot
} xpbd_lambda;

// A joint's free axis as its projected row (joint/joint.h, builder_project_free_rows): the direction the
// coordinate moves with the locks held. sign is +1 when the row's error grows with the coordinate (a
// drive's or lower limit's row), -1 when it shrinks (an upper limit, the swing cone).
typedef struct xpbd_axis
{
	const row* r; // NULL: none (the block uses its own geometric direction)
	double sign;
} xpbd_axis;

typedef struct xpbd_ctx
{
	solver_body* bodies; // the world's solver bodies (for rows)
	xpbd_side a, b;
	double h; // XPBD substep, s
	xpbd_pass pass;
	joint* j;         // receives the impulses: force on B (N*s) and torque on B about its anchor (N*m*s)
	xpbd_lambda* lam; // the joint's multipliers in this substep
} xpbd_ctx;

// The joint's frames at the current poses.
typedef struct xpbd_frames
{
	sn_vec3 pa, pb; // anchors, world, m
	sn_vec3 a1, b1; // frame A's x (joint axis) and y axes, world
	sn_vec3 a2, b2; // frame B's x and y axes, world
} xpbd_frames;

void xpbd_frames_now(xpbd_ctx* c, xpbd_frames* f);

// Frame B's y axis taken back through the swing (the shortest rotation from a2 to a1): the angle from
// b1 to it about a1 is the joint's twist coordinate theta of joint/joint.h exactly.
sn_vec3 xpbd_unswing(sn_vec3 a1, sn_vec3 a2, sn_vec3 b2);

// Displace a body's centre of mass by dx (m) and rotate it by dtheta (rad), world frame, as the notes apply a
// correction: q <- normalise(q + 1/2 [dtheta, 0] q).
void xpbd_move_body(body* b, sn_vec3 dx, sn_vec3 dtheta);

// Position corrections along unit n: dp is the displacement of point p2 (on B) relative to p1 (on A)
// that the correction makes (a multiple of n), dphi the rotation of B relative to A, rad. `soft` NULL or
// rigid means alpha = 0. `lambda` is the multiplier accumulated in this substep (updated), capped in
// length at lambda_max (N*s^2; INFINITY for none).
void xpbd_apply_linear_correction(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 n, sn_vec3 dp, const sn_soft* soft,
								  double lambda_max, sn_vec3* lambda);
void xpbd_apply_angular_correction(xpbd_ctx* c, sn_vec3 n, sn_vec3 dphi, const sn_soft* soft, double lambda_max,
								   sn_vec3* lambda);

// Velocity corrections: change the velocity of p2 relative to p1 by dv (m/s), or B's angular velocity
// relative to A by dw (rad/s); fully for compliance 0, as an implicit dashpot for compliance 1/(h b).
double xpbd_apply_linear_velocity_correction(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 dv, double compliance);
double xpbd_apply_angular_velocity_correction(xpbd_ctx* c, sn_vec3 dw, double compliance);

// Damping of the relative velocity of p2 against p1 along unit n, and of the relative angular velocity
// about unit n, with the damping of `soft` (nothing if it has none).
void xpbd_damp_linear(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 n, const sn_soft* soft);
void xpbd_damp_angular(xpbd_ctx* c, sn_vec3 n, const sn_soft* soft);

// The building blocks. Each acts in the context's pass: in the position pass it projects (with the
// compliance of `soft`, accumulating its multiplier in *lambda), in the velocity pass it damps (with the
// damping of `soft`) while it is active.
// Attach: |p2 - p1| = rest (rest 0: the points coincide). `fallback` is the direction used when
// rest > 0 and the points coincide.
void xpbd_attach(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, double rest, sn_vec3 fallback, const sn_soft* soft,
				 sn_vec3* lambda);
// RestrictToAxis: p2 - p1 stays on the line through p1 along unit a, with a . (p2 - p1) in [pmin, pmax]
// (infinite bounds for a pure line constraint).
void xpbd_restrict_to_axis(xpbd_ctx* c, sn_vec3 a, sn_vec3 p1, sn_vec3 p2, double pmin, double pmax,
						   const sn_soft* soft, sn_vec3* lambda);
// The axial part of RestrictToAxis alone: a . (p2 - p1) in [pmin, pmax]; pmin == pmax drives it to that
// value with the force capped by lambda_max.
void xpbd_limit_along_axis(xpbd_ctx* c, sn_vec3 a, sn_vec3 p1, sn_vec3 p2, double pmin, double pmax,
						   const sn_soft* soft, double lambda_max, const xpbd_axis* along, sn_vec3* lambda);
// AlignAxes: unit a2 (on B) turns onto unit a1 (on A).
void xpbd_align_axes(xpbd_ctx* c, sn_vec3 a1, sn_vec3 a2, const sn_soft* soft, sn_vec3* lambda);
// LimitAngle: the angle from a1 to a2 about unit n stays in [lo, hi] (rad); lo == hi drives it there
// (servo, motor) with the torque capped by lambda_max. The two limits move B along `along` when given
// (the joint's free axis with its locks held, see xpbd_axis), else by the notes' rotation about n.
void xpbd_limit_angle(xpbd_ctx* c, sn_vec3 n, sn_vec3 a1, sn_vec3 a2, double lo, double hi, const sn_soft* soft,
					  double lambda_max, const xpbd_axis* along, sn_vec3* lambda);

// A joint's locks solved as one block: nl linear directions el (world) at p1 on A and p2 on B with
// wanted displacements dl (m), and na angular directions ea with wanted rotations da (rad), the errors
// of the notes' blocks (Attach or RestrictToAxis, AlignAxes, LimitAngle(0, 0)). acc: the nl + na
// multipliers accumulated in this substep. nl + na <= 6.
void xpbd_lock_block(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, const sn_vec3* el, const double* dl, int nl,
					 const sn_vec3* ea, const double* da, int na, const sn_soft* soft, double* acc);

// The generic fallback for features without a block of the notes: rows built by the joint's own row code
// (joint/joint.h) at the current pose, each corrected by lambda <- -(C + alpha~ lambda) / (K + alpha~), with
// K = J M^-1 J^T of the row. Rows whose slot is outside [slot_lo, slot_hi] are skipped.
void xpbd_solve_rows(xpbd_ctx* c, const sn_world* world, int slot_lo, int slot_hi);

// The rows of the joint at the current pose (joint/joint.h), free rows projected against its locks, into
// rows (room for JOINT_SLOTS + 1) and blocks (room for 2). Returns the number of rows.
int xpbd_build_rows(xpbd_ctx* c, const sn_world* world, row* rows, row_block* blocks);

#endif
