// The XPBD world solver: Mueller et al. 2020, "Detailed Rigid Body Simulation with Extended Position Based
// Dynamics", and Mueller's Ten Minute Physics notes "Joint Simulation" ("the notes" below: their "XPBD
// Algorithm for Rigid Bodies" with substeps and a velocity pass, and the joint blocks of xpbd_blocks.c).
//
// One world substep h runs n = position_iterations XPBD substeps of hx = h / n. Each:
//   1. integrate every body: v += hx (g + F/m), omega by the implicit gyroscopic step (body.c) with the
//      applied torque, body damping v /= 1 + hx rate; remember the pose; x += hx v, q = exp(hx omega) q;
//   2. the position pass: every joint, in creation order and then in reverse (a symmetric Gauss-Seidel
//      sweep, see below), applies its blocks (xpbd_blocks.c), each a position correction
//      lambda = C / (w1 + w2 + alpha/hx^2) evaluated at the current poses; the contacts between bodies
//      and with the static world (xpbd_contacts.c: normals and static friction) sit in the middle of the
//      sweep, after the joints forward and before them backward;
//   3. derive the velocities: v = (x - x_prev)/hx, omega = log(q q_prev*)/hx (the exact inverse of the
//      exponential map of step 1, where the notes' 2 vec(dq)/hx is its small-angle form), computed as the
//      predicted velocity plus the corrections' displacement over hx;
//   4. the velocity pass of the joints (skipped when velocity_iterations is 0): soft blocks damp their
//      relative velocity with their damping b as implicit dashpots; six-axis motors drive their axis
//      speed. Limits are inelastic as in PGS/TGS. Then the contacts' velocity pass (xpbd_contacts.c:
//      restitution, dynamic friction, soft contacts' damping), in every substep.
// The notes make the case for substeps over iterations ("much faster convergence, like a global
// solver"), so n is the number of substeps, and the world's substeps multiply it.
//   Why the pass is symmetric. What one sweep leaves of an error e, G e (G the Gauss-Seidel iteration
// matrix of the joints' linearised system), becomes velocity when velocities are derived, and the next
// prediction carries it forward: e' = G (2 e - e_prev). For an eigenvalue mu of G the error grows when
// lambda^2 - 2 mu lambda + mu = 0 has a root outside the unit circle, which happens for real mu < -1/3.
// A forward sweep's G can have such eigenvalues once joints are strongly coupled: a sheet of bodies with
// small inertia joined side by side (a 2 x 3 grid of 0.25 m plates, 32 substeps) grew an out-of-plane
// spin tenfold every five steps and the 20 x 20 grid reached 1e6 N and 3 cm gaps. A forward sweep
// followed by a backward one is symmetric Gauss-Seidel, whose iteration matrix has real eigenvalues in
// [0, 1) for the symmetric positive semi-definite systems of rigid joints: the same grids then hold
// their joints to 1e-5 m. Alternating the direction from one substep to the next is not enough (it
// diverged faster). A substep therefore costs two sweeps. Joint impulses (lambda / hx per position
// correction, lambda per velocity correction) accumulate into the joint's force and torque, which the
// world divides by the step: the same N and N*m on body B (torque about B's anchor) as PGS/TGS report,
// so breakable joints work unchanged.
//
// The joint types from the notes' blocks (a1, b1: frame A's x and y axes; a2, b2: frame B's; p1, p2:
// the anchors; b2u = unswing(b2), see xpbd_blocks.c; "lock", "limit", "spring" the def's softness;
// [..]: solved as one block, see below):
//   fixed        [Attach(p1, p2, 0, lock); AlignAxes(a1, a2, lock); LimitAngle(a1, b1, b2u, 0, 0, lock)]
//   hinge        drives; LimitAngle(a1, b1, b2u, lower, upper, limit); [Attach(0, lock); AlignAxes(lock)]
//   prismatic    drives; the axial part of RestrictToAxis(a1, lower, upper, limit);
//                [RestrictToAxis(a1, p1, p2, -inf, inf, lock); AlignAxes(lock); LimitAngle(0, 0, lock)]
//   cylindrical  the prismatic joint's linear drives and limit and the hinge's angular ones;
//                [RestrictToAxis(lock); AlignAxes(lock)]
//   spherical    LimitAngle(a1, b1, b2u, twist lower, upper); swing cone LimitAngle(n = a1 x a2 / |..|,
//                a1, a2, 0, half-angle) when circular; Attach(0, lock)
//   distance     Attach(p1, p2, length, lock) as a rod; with a spring, Attach(length, spring) and, while
//                the length is outside [min, max], Attach(min or max, limit)
//   drives       servo (rigid spring): LimitAngle(target, target, alpha = 0) (the notes' "Servo"), or its
//                linear twin; soft spring: the same with the spring's compliance and damping; velocity
//                motor: LimitAngle(phi_start + hx speed) (the notes' "Velocity Motor" with phi_motor
//                restarted from the substep's starting angle phi_start, so a motor that cannot keep up
//                does not wind up an ever larger lag); force caps bound lambda by max_force hx^2.
// Features without a block of the notes take the generic per-row correction of xpbd_blocks.c on the rows PGS
// and TGS use: the elliptic swing cone (y_angle != z_angle) and the whole six-axis joint.
//
// Two refinements of the notes, both about levers. (1) A joint's locks (the Attach or RestrictToAxis,
// AlignAxes and LimitAngle(0, 0) above) are solved as one block, their errors and directions those of
// the notes' blocks: solved one after the other, each undoes the others through the lever between the
// anchor and the body's centre, and a 3 kg load held 0.5 m off a weld reported 17 N of its 29 N wrong in
// transients. (2) The drives and limits keep the notes' LimitAngle and RestrictToAxis for what they
// measure and target, but move the bodies along the joint's free axis with its locks held (the projected
// row of joint/joint.h): a bob of inertia 1e-3 kg*m^2 on a 1 m arm is cheapest to turn about its own centre,
// so the notes' correction is mostly undone by the point lock that follows it; a hinge limit overshot by
// 4e-2 rad, a servo drifted by 4e-3 rad and a torsion spring held a lever at 0.031 rad instead of
// 0.049. Along the free axis they are exact, and the spring's compliance acts on the axis's own
// effective mass, as PGS/TGS's projected rows do.
//
// Errors that exist when a substep starts (a joint created out of place, a violated limit at creation)
// are projected in that substep like any other, and the derived velocity keeps the displacement: the
// bodies snap together at error / hx, where PGS, TGS and DIRECT remove such errors at erp per step.
// This is the notes' behaviour; a distance joint created 0.3 m short of its minimum length throws its
// bodies at ~100 m/s. Create joints in place for XPBD.
//
// Def fields and world settings in XPBD:
//   lock_soft, limit soft, spring soft: compliance alpha = c = 1/k in the position pass, damping b in the
//     velocity pass (constraint/soft.h maps every form); a static load deflects a soft block by F c.
//   erp: unused (positions are projected directly). velocity_iterations: 0 skips the joints' velocity
//     pass, any positive value runs it once per XPBD substep (a second pass would compound the dashpots);
//     the contacts' velocity pass runs regardless.
//   Contact settings: slop unused (XPBD pushes every overlap out, see xpbd_contacts.c), max_push_speed
//     bounds that push, restitution_threshold as in PGS/TGS.
//   Motors: the hinge, prismatic and cylindrical motors are position targets (above); six-axis motors act
//     in the velocity pass, so they need velocity_iterations > 0.
//   Break force and torque: as in PGS/TGS, from the reported force and torque.
#include "solver/xpbd.h"

#include "body.h"
#include "joint/joint.h"
#include "math/mathx.h"
#include "world.h"
#include "solver/xpbd_blocks.h"
#include "solver/xpbd_contacts.h"

#include <math.h>
#include <string.h>

sn_error xpbd_reserve(sn_world* world)
{
	xpbd_state* x = &world->xpbd;
	void* p = x->predicted;
	bool ok = memory_reserve(&world->memory, &p, &x->predicted_capacity, world->body_high + 1, sizeof(xpbd_pose));
	x->predicted = p;
	p = x->before;
	ok = ok && memory_reserve(&world->memory, &p, &x->before_capacity, world->body_high + 1, sizeof(xpbd_pose));
	x->before = p;
	p = x->start;
	ok = ok && memory_reserve(&world->memory, &p, &x->start_capacity, 2 * world->joint_high + 2, sizeof(double));
	x->start = p;
	p = x->lambda;
	ok = ok && memory_reserve(&world->memory, &p, &x->lambda_capacity, world->joint_high + 1, sizeof(xpbd_lambda));
	x->lambda = p;
	return ok ? SN_ERR_OK : SN_ERR_NO_MEMORY;
}

void xpbd_release(sn_world* world)
{
	xpbd_state* x = &world->xpbd;
	memory_free(&world->memory, x->predicted, (size_t)x->predicted_capacity * sizeof(xpbd_pose));
	memory_free(&world->memory, x->before, (size_t)x->before_capacity * sizeof(xpbd_pose));
	memory_free(&world->memory, x->start, (size_t)x->start_capacity * sizeof(double));
	memory_free(&world->memory, x->lambda, (size_t)x->lambda_capacity * sizeof(xpbd_lambda));
	memset(x, 0, sizeof(*x));
}

static bool joint_active(const joint* j)
{
	return j->live && j->enabled && !j->broken && !j->articulated; // the articulations' path has those
}

static void make_side(sn_world* world, int32_t index, xpbd_side* s)
{
	if (index < 0)
	{
		s->b = NULL;
		s->s = world->solver_bodies;
		s->com = sn_v3(0, 0, 0);
		s->im = 0.0;
		s->ii = sn_mat33_zero();
		return;
	}
	body* b = world->bodies + index;
	const solver_body_info* info = world->solver_infos + b->solver_index;
	s->b = b;
	s->s = world->solver_bodies + b->solver_index;
	s->com = b->com;
	s->im = b->type == SN_BODY_DYNAMIC ? info->inv_mass : 0.0;
	s->ii = b->type == SN_BODY_DYNAMIC ? info->inv_inertia : sn_mat33_zero();
}

static void make_ctx(sn_world* world, joint* j, double hx, xpbd_pass pass, xpbd_ctx* c)
{
	c->lam = world->xpbd.lambda + (j - world->joints);
	c->bodies = world->solver_bodies;
	make_side(world, j->body_a, &c->a);
	make_side(world, j->body_b, &c->b);
	c->h = hx;
	c->pass = pass;
	c->j = j;
}

static double force_cap(double max_force, double hx)
{
	return isinf(max_force) ? INFINITY : max_force * hx * hx;
}

static bool has_angular_motor(const joint* j)
{
	return (j->type == SN_JOINT_HINGE || j->type == SN_JOINT_CYLINDRICAL) && j->axes[SN_AXIS_RX].motor.enabled;
}

static bool has_linear_motor(const joint* j)
{
	return (j->type == SN_JOINT_PRISMATIC || j->type == SN_JOINT_CYLINDRICAL) && j->axes[SN_AXIS_X].motor.enabled;
}

static double twist_now(const xpbd_frames* f)
{
	sn_vec3 b2u = xpbd_unswing(f->a1, f->a2, f->b2);
	return atan2(sn_dot(sn_cross(f->b1, b2u), f->a1), sn_dot(f->b1, b2u));
}

// Motor coordinates at the start of the XPBD substep, before the bodies move.
static void record_motor_starts(sn_world* world, double hx)
{
	double* start = world->xpbd.start;
	for (int i = 0; i < world->joint_high; ++i)
	{
		joint* j = world->joints + i;
		if (!joint_active(j) || !(has_angular_motor(j) || has_linear_motor(j)))
		{
			continue;
		}
		xpbd_ctx c;
		xpbd_frames f;
		make_ctx(world, j, hx, XPBD_POSITION, &c);
		xpbd_frames_now(&c, &f);
		start[2 * i] = sn_dot(f.a1, sn_sub(f.pb, f.pa));
		start[2 * i + 1] = twist_now(&f);
	}
}

static void integrate(sn_world* world, double hx)
{
	xpbd_pose* predicted = world->xpbd.predicted;
	for (int i = 1; i < world->solver_count; ++i)
	{
		solver_body_info* info = world->solver_infos + i;
		body* b = world->bodies + info->body;
		solver_body* s = world->solver_bodies + i;
		world->xpbd.before[i].x = b->com;
		world->xpbd.before[i].q = b->q;
		if (b->type == SN_BODY_DYNAMIC)
		{
			body_integrate_velocity(b, world->def.gravity, hx, &s->v, &s->w);
		}
		b->com = sn_mul_add(b->com, hx, s->v);
		b->q = quat_integrate(b->q, s->w, hx);
		predicted[i].x = b->com;
		predicted[i].q = b->q;
		if (b->type == SN_BODY_DYNAMIC)
		{
			info->inv_inertia = body_inv_inertia_world(b);
		}
	}
}

static void derive_velocities(sn_world* world, double hx)
{
	const xpbd_pose* predicted = world->xpbd.predicted;
	double inv = 1.0 / hx;
	for (int i = 1; i < world->solver_count; ++i)
	{
		const body* b = world->bodies + world->solver_infos[i].body;
		if (b->type != SN_BODY_DYNAMIC)
		{
			continue;
		}
		solver_body* s = world->solver_bodies + i;
		// v = (x - x_prev) / hx, written as the predicted velocity plus what the corrections moved: the
		// same number, without the round-off of a difference of two positions (exact for a free body).
		s->v = sn_mul_add(s->v, inv, sn_sub(b->com, predicted[i].x));
		s->w = sn_mul_add(s->w, inv, quat_log(sn_quat_mul(b->q, sn_quat_conj(predicted[i].q))));
	}
}


// ---- joint types from the blocks ---------------------------------------------------------------------

static void angular_drives(xpbd_ctx* c, const sn_joint_axis* ax, double start, const xpbd_axis* along)
{
	xpbd_frames f;
	if (ax->spring.enabled)
	{
		xpbd_frames_now(c, &f);
		double target = ax->spring.target;
		xpbd_limit_angle(c, f.a1, f.b1, xpbd_unswing(f.a1, f.a2, f.b2), target, target, &ax->spring.soft,
						 force_cap(ax->spring.max_force, c->h), along, c->lam->block + XL_ANGULAR_SPRING);
	}
	if (ax->motor.enabled)
	{
		xpbd_frames_now(c, &f);
		double target = wrap_angle(start + c->h * ax->motor.speed);
		xpbd_limit_angle(c, f.a1, f.b1, xpbd_unswing(f.a1, f.a2, f.b2), target, target, NULL,
						 force_cap(ax->motor.max_force, c->h), along, c->lam->block + XL_ANGULAR_MOTOR);
	}
}

static void angular_limit(xpbd_ctx* c, const sn_joint_axis* ax, const xpbd_axis* along)
{
	if (ax->mode != SN_AXIS_LIMITED)
	{
		return;
	}
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	xpbd_limit_angle(c, f.a1, f.b1, xpbd_unswing(f.a1, f.a2, f.b2), ax->lower, ax->upper, &ax->limit_soft, INFINITY,
					 along, c->lam->block + XL_ANGULAR_LIMIT);
}

static void linear_drives(xpbd_ctx* c, const sn_joint_axis* ax, double start, const xpbd_axis* along)
{
	xpbd_frames f;
	if (ax->spring.enabled)
	{
		xpbd_frames_now(c, &f);
		double target = ax->spring.target;
		xpbd_limit_along_axis(c, f.a1, f.pa, f.pb, target, target, &ax->spring.soft,
							  force_cap(ax->spring.max_force, c->h), along, c->lam->block + XL_LINEAR_SPRING);
	}
	if (ax->motor.enabled)
	{
		xpbd_frames_now(c, &f);
		double target = start + c->h * ax->motor.speed;
		xpbd_limit_along_axis(c, f.a1, f.pa, f.pb, target, target, NULL, force_cap(ax->motor.max_force, c->h), along,
							  c->lam->block + XL_LINEAR_MOTOR);
	}
}

static void linear_limit(xpbd_ctx* c, const sn_joint_axis* ax, const xpbd_axis* along)
{
	if (ax->mode != SN_AXIS_LIMITED)
	{
		return;
	}
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	xpbd_limit_along_axis(c, f.a1, f.pa, f.pb, ax->lower, ax->upper, &ax->limit_soft, INFINITY, along,
						  c->lam->block + XL_LINEAR_LIMIT);
}

static void attach_anchors(xpbd_ctx* c)
{
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	xpbd_attach(c, f.pa, f.pb, 0.0, f.a1, &c->j->lock_soft, c->lam->block + XL_ATTACH);
}

static void align(xpbd_ctx* c)
{
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	xpbd_align_axes(c, f.a1, f.a2, &c->j->lock_soft, c->lam->block + XL_ALIGN);
}

static void lock_twist(xpbd_ctx* c)
{
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	xpbd_limit_angle(c, f.a1, f.b1, xpbd_unswing(f.a1, f.a2, f.b2), 0.0, 0.0, &c->j->lock_soft, INFINITY, NULL,
					 c->lam->block + XL_TWIST_LOCK);
}

static void restrict_to_line(xpbd_ctx* c)
{
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	xpbd_restrict_to_axis(c, f.a1, f.pa, f.pb, -INFINITY, INFINITY, &c->j->lock_soft, c->lam->block + XL_LINE);
}

// The locks of a joint: the point (Attach, rest 0) or the line (RestrictToAxis), and the axis
// (AlignAxes) with or without the twist (LimitAngle(0, 0)), solved as one block in the position pass
// (see the header); in the velocity pass each block damps its own.
enum
{
	LOCK_POINT = 0,
	LOCK_LINE = 1,
	LOCK_NO_ANGLE = 0,
	LOCK_AXIS = 2,
	LOCK_AXIS_AND_TWIST = 3,
};

static void locks(xpbd_ctx* c, int linear, int angular)
{
	if (c->pass == XPBD_VELOCITY)
	{
		if (linear == LOCK_LINE)
		{
			restrict_to_line(c);
		}
		else
		{
			attach_anchors(c);
		}
		if (angular >= LOCK_AXIS)
		{
			align(c);
		}
		if (angular == LOCK_AXIS_AND_TWIST)
		{
			lock_twist(c);
		}
		return;
	}
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	sn_vec3 el[3], ea[3];
	double dl[3], da[3];
	int nl = 3, na = 0;
	sn_vec3 d = sn_sub(f.pb, f.pa);
	if (linear == LOCK_LINE)
	{
		vec3_plane_basis(f.a1, el, el + 1);
		nl = 2;
	}
	else
	{
		el[0] = sn_v3(1, 0, 0);
		el[1] = sn_v3(0, 1, 0);
		el[2] = sn_v3(0, 0, 1);
	}
	for (int i = 0; i < nl; ++i)
	{
		dl[i] = -sn_dot(el[i], d); // Attach: -(p2 - p1); RestrictToAxis: minus its part off the axis
	}
	if (angular >= LOCK_AXIS)
	{
		sn_vec3 u = sn_cross(f.a2, f.a1); // AlignAxes: turn a2 onto a1 by the angle between them
		double s = sn_length(u);
		sn_vec3 turn = s > 0.0 ? sn_scale(atan2(s, sn_dot(f.a1, f.a2)) / s, u) : sn_v3(0, 0, 0);
		vec3_plane_basis(f.a1, ea, ea + 1);
		da[0] = sn_dot(ea[0], turn);
		da[1] = sn_dot(ea[1], turn);
		na = 2;
	}
	if (angular == LOCK_AXIS_AND_TWIST)
	{
		ea[2] = f.a1; // LimitAngle(a1, b1, b2u, 0, 0): turn the twist back to zero
		da[2] = -wrap_angle(twist_now(&f));
		na = 3;
	}
	double acc[6] = { c->lam->block[XL_ATTACH].x, c->lam->block[XL_ATTACH].y, c->lam->block[XL_ATTACH].z,
					  c->lam->block[XL_ALIGN].x,  c->lam->block[XL_ALIGN].y,  c->lam->block[XL_ALIGN].z };
	double packed[6];
	for (int i = 0; i < nl; ++i)
	{
		packed[i] = acc[i];
	}
	for (int i = 0; i < na; ++i)
	{
		packed[nl + i] = acc[3 + i];
	}
	xpbd_lock_block(c, linear == LOCK_LINE ? f.pb : f.pa, f.pb, el, dl, nl, ea, da, na, &c->j->lock_soft, packed);
	for (int i = 0; i < nl; ++i)
	{
		acc[i] = packed[i];
	}
	for (int i = 0; i < na; ++i)
	{
		acc[3 + i] = packed[nl + i];
	}
	c->lam->block[XL_ATTACH] = sn_v3(acc[0], acc[1], acc[2]);
	c->lam->block[XL_ALIGN] = sn_v3(acc[3], acc[4], acc[5]);
}

static void swing_cone(xpbd_ctx* c, const sn_world* world, const xpbd_axis* along)
{
	const sn_cone_limit* cone = &c->j->cone;
	if (!cone->enabled)
	{
		return;
	}
	if (cone->y_angle != cone->z_angle)
	{
		xpbd_solve_rows(c, world, SLOT_CONE, SLOT_CONE); // elliptic: no block of the notes
		return;
	}
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	sn_vec3 u = sn_cross(f.a1, f.a2);
	double s = sn_length(u);
	if (s > 1e-12)
	{
		xpbd_limit_angle(c, sn_scale(1.0 / s, u), f.a1, f.a2, 0.0, cone->y_angle, &cone->soft, INFINITY, along,
						 c->lam->block + XL_CONE);
	}
}

static void distance_blocks(xpbd_ctx* c)
{
	const joint* j = c->j;
	xpbd_frames f;
	xpbd_frames_now(c, &f);
	if (!j->spring_enabled)
	{
		xpbd_attach(c, f.pa, f.pb, j->length, f.a1, &j->lock_soft, c->lam->block + XL_ATTACH);
		return;
	}
	xpbd_attach(c, f.pa, f.pb, j->length, f.a1, &j->spring, c->lam->block + XL_ATTACH);
	const sn_joint_axis* ax = j->axes + SN_AXIS_X;
	if (ax->mode != SN_AXIS_LIMITED)
	{
		return;
	}
	xpbd_frames_now(c, &f);
	double len = sn_length(sn_sub(f.pb, f.pa));
	if (len < ax->lower)
	{
		xpbd_attach(c, f.pa, f.pb, ax->lower, f.a1, &ax->limit_soft, c->lam->block + XL_DISTANCE_LIMIT);
	}
	else if (len > ax->upper)
	{
		xpbd_attach(c, f.pa, f.pb, ax->upper, f.a1, &ax->limit_soft, c->lam->block + XL_DISTANCE_LIMIT);
	}
}

// The joint's free axes as projected rows (xpbd_axis), when it has limits, drives or a swing cone.
typedef struct free_axes
{
	row rows[SN_AXIS_COUNT * SLOTS_PER_AXIS + 1];
	row_block blocks[2];
	int count;
	xpbd_axis x, rx, cone;
} free_axes;

static bool axis_in_use(const sn_joint_axis* ax)
{
	return ax->mode == SN_AXIS_LIMITED || ax->motor.enabled || ax->spring.enabled;
}

static xpbd_axis find_axis(const free_axes* fa, int axis)
{
	xpbd_axis out = { NULL, 1.0 };
	for (int i = 0; i < fa->count; ++i)
	{
		const row* r = fa->rows + i;
		if (r->slot < SLOT_CONE && r->slot / SLOTS_PER_AXIS == axis)
		{
			out.r = r;
			out.sign = r->slot % SLOTS_PER_AXIS == SLOT_UPPER ? -1.0 : 1.0;
			return out;
		}
		if (axis == -1 && r->slot == SLOT_CONE)
		{
			out.r = r;
			out.sign = -1.0; // the cone row's error L (1 - rho) shrinks as the swing grows
			return out;
		}
	}
	return out;
}

static void find_free_axes(xpbd_ctx* c, const sn_world* world, free_axes* fa)
{
	const joint* j = c->j;
	fa->count = 0;
	bool used = false;
	switch (j->type)
	{
		case SN_JOINT_HINGE:
		case SN_JOINT_PRISMATIC:
		case SN_JOINT_CYLINDRICAL:
			used = ((j->movable & (1u << SN_AXIS_X)) && axis_in_use(j->axes + SN_AXIS_X)) ||
				((j->movable & (1u << SN_AXIS_RX)) && axis_in_use(j->axes + SN_AXIS_RX));
			break;
		case SN_JOINT_SPHERICAL:
			used = j->axes[SN_AXIS_RX].mode == SN_AXIS_LIMITED || j->cone.enabled;
			break;
		default:
			break;
	}
	if (used)
	{
		fa->count = xpbd_build_rows(c, world, fa->rows, fa->blocks);
	}
	fa->x = find_axis(fa, SN_AXIS_X);
	fa->rx = find_axis(fa, SN_AXIS_RX);
	fa->cone = find_axis(fa, -1);
}

static void solve_joint(xpbd_ctx* c, const sn_world* world, const double* start)
{
	const joint* j = c->j;
	const sn_joint_axis* x = j->axes + SN_AXIS_X;
	const sn_joint_axis* rx = j->axes + SN_AXIS_RX;
	free_axes fa;
	find_free_axes(c, world, &fa);
	switch (j->type)
	{
		case SN_JOINT_FIXED:
			locks(c, LOCK_POINT, LOCK_AXIS_AND_TWIST);
			break;
		case SN_JOINT_HINGE:
			angular_drives(c, rx, start[1], &fa.rx);
			angular_limit(c, rx, &fa.rx);
			locks(c, LOCK_POINT, LOCK_AXIS);
			break;
		case SN_JOINT_PRISMATIC:
			linear_drives(c, x, start[0], &fa.x);
			linear_limit(c, x, &fa.x);
			locks(c, LOCK_LINE, LOCK_AXIS_AND_TWIST);
			break;
		case SN_JOINT_CYLINDRICAL:
			linear_drives(c, x, start[0], &fa.x);
			angular_drives(c, rx, start[1], &fa.rx);
			linear_limit(c, x, &fa.x);
			angular_limit(c, rx, &fa.rx);
			locks(c, LOCK_LINE, LOCK_AXIS);
			break;
		case SN_JOINT_SPHERICAL:
			angular_limit(c, rx, &fa.rx);
			swing_cone(c, world, &fa.cone);
			attach_anchors(c);
			break;
		case SN_JOINT_DISTANCE:
			distance_blocks(c);
			break;
		case SN_JOINT_SIX_AXIS:
			xpbd_solve_rows(c, world, 0, JOINT_SLOTS - 1);
			break;
		case SN_JOINT_TYPE_COUNT:
			break;
	}
}

static void joint_pass(sn_world* world, double hx, xpbd_pass pass, bool backward)
{
	for (int k = 0; k < world->joint_high; ++k)
	{
		int i = backward ? world->joint_high - 1 - k : k;
		joint* j = world->joints + i;
		if (!joint_active(j))
		{
			continue;
		}
		xpbd_ctx c;
		make_ctx(world, j, hx, pass, &c);
		if (pass == XPBD_POSITION && !backward)
		{
			memset(c.lam, 0, sizeof(*c.lam)); // a new substep's multipliers
		}
		solve_joint(&c, world, world->xpbd.start + 2 * i);
	}
}

void xpbd_substep(sn_world* world, double h)
{
	int n = world->def.position_iterations;
	double hx = h / n;
	body_prepare_solver_slots(world);
	world->row_count = 0; // XPBD builds rows only for the generic fallback, on its own stack
	const bool contacts = xpbd_contacts_prepare(world);
	for (int it = 0; it < n; ++it)
	{
		record_motor_starts(world, hx);
		if (contacts)
		{
			xpbd_contacts_begin_substep(world, hx);
		}
		integrate(world, hx);
		joint_pass(world, hx, XPBD_POSITION, false);
		if (contacts)
		{
			xpbd_contacts_position_sweep(world, hx, false);
			xpbd_contacts_position_sweep(world, hx, true);
		}
		joint_pass(world, hx, XPBD_POSITION, true);
		derive_velocities(world, hx);
		if (world->def.velocity_iterations > 0)
		{
			joint_pass(world, hx, XPBD_VELOCITY, false);
		}
		if (contacts)
		{
			xpbd_contacts_velocity_pass(world, hx);
		}
	}
	body_store_solver_velocities(world);
}
