// XPBD building blocks: Attach, RestrictToAxis, AlignAxes and LimitAngle, and the corrections they are
// made of, from Mueller's "Joint Simulation" notes (Ten Minute Physics, after Mueller et al. 2020,
// "Detailed Rigid Body Simulation with Extended Position Based Dynamics"; "the notes" below, with the
// corrections of their typos marked as errata).
//
// Sign convention. A correction moves B by +lambda and A by -lambda along a direction: a linear
// correction along unit n applied at p1 on A and p2 on B (levers r1 = p1 - x1, r2 = p2 - x2) moves
//   x1 -= m1^-1 n lambda,  theta1 -= I1^-1 (r1 x n) lambda,  x2 += m2^-1 n lambda,  theta2 += I2^-1 (r2 x n) lambda
// so p2 - p1 changes by w lambda n with w = w1 + w2, w_i = m_i^-1 + (r_i x n)^T I_i^-1 (r_i x n). An
// angular correction about unit n rotates A by -I1^-1 n lambda and B by +I2^-1 n lambda, turning B
// relative to A by w lambda n with w_i = n^T I_i^-1 n. (The notes' "x_i <- x_i +- lambda n m_i^-1" with
// its lambda = -C/w is the same move with the sign folded into lambda; we keep lambda >= 0 along the
// wanted displacement.)
//
// Position corrections (ApplyLinearCorrection, ApplyAngularCorrection). The wanted displacement dp of
// p2 relative to p1 (or rotation dphi of B relative to A) has length C and direction n. XPBD with
// compliance alpha (Faure's c = 1/k, constraint/soft.h) and alpha~ = alpha / h^2 solves
//   dlambda = (C - alpha~ lambda) / (w + alpha~)
// with lambda the multiplier this block has accumulated in the substep (0 in its first correction, where
// this is the notes' lambda <- -C (w1 + w2 + alpha/dt^2)^-1 up to the sign convention; xpbd.c sweeps
// twice per substep, and the second correction must continue the first for a soft block to keep its
// compliance). Blocks that constrain more than one direction (Attach with rest 0: three; RestrictToAxis
// as a line: two; AlignAxes: two) are solved in all of them at once,
//   (E^T K E + alpha~ I) dlambda = E^T dp - alpha~ E^T lambda,   K_ij = e_i^T (M^-1 seen at p1, p2) e_j,
// with E the block's directions: the notes' single correction along n is exact only when K is
// isotropic; for a small inertia on a long lever (a bob of 1 cm radius on a 1 m arm: eigenvalues 1/m and
// 1/m + r^2/I, 25000 apart) it leaves an error across n as large as the one it removes, and the notes'
// pendulum drifted by 1 cm and spun at 74 rad/s. The force on B
// is lambda n / h^2 (N) and the torque lambda n / h^2 (N*m) (the notes: "lambda n / dt^2 yields the
// constraint force"); over the substep that is the impulse lambda n / h, which is what the joint
// accumulates, so its reported force has the units and meaning of PGS/TGS. Rotations apply as
// q <- normalise(q + 1/2 [dtheta, 0] q) as in the notes. A force cap F (motors, capped springs) bounds
// lambda by F h^2.
//   Under a constant load F the fixed point of "predict, correct" is C = F alpha (the prediction moves
//   the row by F w h^2 per substep, the correction removes C w / (w + alpha~) of the result): the
//   static deflection is F c whatever h, as in the other solvers.
//
// Velocity corrections (ApplyLinearVelocityCorrection, ApplyAngularVelocityCorrection), with the errata:
// n <- dv / |dv| (the notes' |dv| / |dv| is a typo), the angular multiplier has the sign of the linear
// one (the notes' "lambda <- dw (w1 + w2)^-1" would turn the relative velocity the wrong way), and the
// velocity of a body point is v + omega x r (the notes' damping writes (p - x) x omega = -omega x r).
// A velocity correction dv of the relative velocity along n takes lambda = |dv| / (w + compliance)
// (N*s), applied like the position move with velocities in place of positions. compliance = 0 is the
// notes' full correction; compliance 1/(h b) makes it the implicit Euler step of a dashpot b:
// P = -h b (Cdot + w P) gives P = -Cdot / (w + 1/(h b)). The notes' damping Dv <- Dv min(h c, 1) (c = b w)
// is the explicit form of the same dashpot; the implicit fraction h b w / (1 + h b w) never overshoots.
//
// The blocks:
//   Attach(p1, p2, rest)       C = |p2 - p1| - rest along n = (p2 - p1)/|p2 - p1|; dp = -(|p2 - p1| - rest) n
//                              (rest = 0: dp = -(p2 - p1)). The forces act at p1 and p2 along the line
//                              through both, so the pair also conserves angular momentum.
//   RestrictToAxis(a, p1, p2, pmin, pmax)  p = p2 - p1, p_a = a . p clamped to [pmin, pmax],
//                              dp = -(p - p_a a). Both bodies are pushed at p2 (the notes pass p1 for A):
//                              the correction is not along p2 - p1, and forces at two different points
//                              would exert a net couple on the pair; at one point they do not (PGS's rows
//                              do the same, joint/joint.h).
//   AlignAxes(a1, a2)          dphi = angle(a1, a2) (a2 x a1)/|a2 x a1|: B turns a2 onto a1. The notes'
//                              -a1 x a2 has the same direction and the sine of the angle as length; we
//                              use the angle itself so a compliant lock is a linear spring in the angle, as
//                              the PGS/TGS swing rows are.
//   LimitAngle(n, a1, a2, lo, hi)  phi = atan2((a1 x a2) . n, a1 . a2); outside [lo, hi] B turns by
//                              dphi = (clamp(phi) - phi) n (wrapped to (-pi, pi]). The notes build the
//                              rotated a2' and corrects by -a2 x a2', whose direction turns a2 away from
//                              a2' with its own AlignAxes sign convention and whose length is the sine of
//                              the error; we derive the rotation directly.
//   Twist as joint/joint.h defines it (swing-twist, theta = 2 atan2(q_x, q_w)): the notes measure the
//   twist of a ball joint between b1, b2 projected onto the plane normal to the bisector
//   (a1 + a2)/|a1 + a2|; that
//   angle differs from theta once the swing is large (by 0.4 rad at a swing of 2 rad), so a twist limit
//   would bound another coordinate than in PGS/TGS/DIRECT. We take b2 back through the swing (the
//   shortest rotation turning a2 onto a1) and measure LimitAngle(a1, b1, unswing(b2)): exactly theta.
//
// Generic rows. A feature without a block of the notes (the elliptic swing cone, the six-axis joint's per-axis
// locks, limits, springs and motors) uses the rows joint/joint.h builds for PGS/TGS, at the current pose: each
// row with error C (kept current through the displacement its joint's earlier rows made), gradient J
// and K = J M^-1 J^T takes dlambda = -(C + alpha~ lambda) / (K + alpha~) with lambda the multiplier
// accumulated in this substep, kept within the row's bounds (a limit's lambda >= 0, so it may let go
// again); the rigid lock rows of a joint, solved as a block in PGS, take the block step -K^-1 C. Motor
// rows, which have no position error, act in the velocity pass: lambda = -(Cdot - speed) / K within their
// force bound.
#include "solver/xpbd_blocks.h"

#include "math/mathx.h"
#include "constraint/soft.h"
#include "world.h"

#include <math.h>
#include <string.h>

enum
{
	XPBD_MAX_ROWS = SN_AXIS_COUNT * SLOTS_PER_AXIS + 1
};

static void account(joint* j, const row* r, double impulse)
{
	j->force = sn_mul_add(j->force, impulse, r->lin);
	j->torque = sn_mul_add(j->torque, impulse, r->anchor_torque);
}

static sn_vec3 side_com(const xpbd_side* s)
{
	return s->b != NULL ? s->b->com : s->com;
}

static bool movable(const xpbd_side* s)
{
	return s->im > 0.0;
}

void xpbd_move_body(body* b, sn_vec3 dx, sn_vec3 dtheta)
{
	b->com = sn_add(b->com, dx);
	sn_quat q = b->q;
	sn_quat r = sn_quat_mul((sn_quat){ dtheta.x, dtheta.y, dtheta.z, 0.0 }, q);
	q.x += 0.5 * r.x;
	q.y += 0.5 * r.y;
	q.z += 0.5 * r.z;
	q.w += 0.5 * r.w;
	b->q = sn_quat_normalize(q);
}

// Displace a side by dx (m) and rotate it by dtheta (rad), world frame.
static void move_side(xpbd_side* s, sn_vec3 dx, sn_vec3 dtheta)
{
	if (!movable(s))
	{
		return;
	}
	xpbd_move_body(s->b, dx, dtheta);
}

static void push_side(xpbd_side* s, sn_vec3 dv, sn_vec3 dw)
{
	if (!movable(s))
	{
		return;
	}
	s->s->v = sn_add(s->s->v, dv);
	s->s->w = sn_add(s->s->w, dw);
}

// alpha~ of a softness for a correction of inverse effective mass w: 0 for rigid, INFINITY when the
// softness has no stiffness (the position pass then leaves the row alone).
static double alpha_tilde(const sn_soft* soft, double w, double h)
{
	if (soft == NULL)
	{
		return 0.0;
	}
	double at, dc;
	return soft_xpbd_for(*soft, w, h, &at, &dc) ? at : 0.0;
}

// The velocity pass's dashpot compliance 1/(h b); INFINITY when there is no damping.
static double damping_compliance(const sn_soft* soft, double w, double h)
{
	if (soft == NULL)
	{
		return INFINITY;
	}
	double at, dc;
	return soft_xpbd_for(*soft, w, h, &at, &dc) ? dc : INFINITY;
}

void xpbd_frames_now(xpbd_ctx* c, xpbd_frames* f)
{
	const joint* j = c->j;
	sn_transform ta = c->a.b != NULL ? body_pose(c->a.b) : sn_transform_identity();
	sn_transform tb = c->b.b != NULL ? body_pose(c->b.b) : sn_transform_identity();
	sn_transform fa = sn_transform_mul(ta, j->frame_a);
	sn_transform fb = sn_transform_mul(tb, j->frame_b);
	f->pa = fa.p;
	f->pb = fb.p;
	f->a1 = sn_rotate(fa.q, sn_v3(1, 0, 0));
	f->b1 = sn_rotate(fa.q, sn_v3(0, 1, 0));
	f->a2 = sn_rotate(fb.q, sn_v3(1, 0, 0));
	f->b2 = sn_rotate(fb.q, sn_v3(0, 1, 0));
	if (c->a.b == NULL)
	{
		c->a.com = f->pa;
	}
	if (c->b.b == NULL)
	{
		c->b.com = f->pb;
	}
}

sn_vec3 xpbd_unswing(sn_vec3 a1, sn_vec3 a2, sn_vec3 b2)
{
	sn_vec3 u = sn_cross(a2, a1);
	double s = sn_length(u);
	if (!(s > 1e-15))
	{
		return b2; // no swing (or a swing of pi, where the twist is undefined anyway)
	}
	double cs = sn_dot(a1, a2);
	sn_vec3 k = sn_scale(1.0 / s, u);
	// Rodrigues: b2 cos + (k x b2) sin + k (k . b2)(1 - cos), with sin = s and cos = a1 . a2.
	return sn_add(sn_add(sn_scale(cs, b2), sn_scale(s, sn_cross(k, b2))), sn_scale(sn_dot(k, b2) * (1.0 - cs), k));
}

// ---- corrections -------------------------------------------------------------------------------------

static const sn_vec3 world_axes[3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };

// One XPBD step on a block with directions e (1..3, orthonormal), wanted displacement `target` and the
// multiplier accumulated in this substep `acc` (a vector, N*s^2): with k = E^T K E on entry, solves
//   (E^T K E + alpha~ I) dl = E^T target - alpha~ E^T acc
// (XPBD's dlambda = (-C - alpha~ lambda) / (w + alpha~) per direction), adds it to acc with |acc| capped
// at lambda_max, and returns the applied change in *out.
static bool subspace_solve(double* k, int dims, const sn_vec3* e, sn_vec3 target, double at, double lambda_max,
						   sn_vec3* acc, sn_vec3* out)
{
	double l[9], d_inv[3], rhs[3] = { 0.0, 0.0, 0.0 }, dl[3];
	for (int i = 0; i < dims; ++i)
	{
		k[i * dims + i] += at;
		rhs[i] = sn_dot(e[i], target) - at * sn_dot(e[i], *acc);
	}
	if (!ldlt_factor(k, dims, l, d_inv))
	{
		return false;
	}
	ldlt_solve(l, d_inv, dims, rhs, dl);
	sn_vec3 next = *acc;
	for (int i = 0; i < dims; ++i)
	{
		next = sn_mul_add(next, dl[i], e[i]);
	}
	double len = sn_length(next);
	if (len > lambda_max)
	{
		next = sn_scale(lambda_max / len, next);
	}
	*out = sn_sub(next, *acc);
	*acc = next;
	return true;
}

// The linear correction dp of p2 relative to p1 within span(e): the notes' ApplyLinearCorrection for
// one direction, all of a block's directions at once otherwise (see the header).
static void linear_correction_in(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, const sn_vec3* e, int dims, sn_vec3 dp,
								 const sn_soft* soft, double lambda_max, sn_vec3* acc)
{
	sn_vec3 ra = sn_sub(p1, side_com(&c->a)), rb = sn_sub(p2, side_com(&c->b));
	sn_vec3 ta[3], tb[3], ia[3], ib[3];
	for (int i = 0; i < dims; ++i)
	{
		ta[i] = sn_cross(ra, e[i]);
		tb[i] = sn_cross(rb, e[i]);
		ia[i] = sn_mat33_mul_v(c->a.ii, ta[i]);
		ib[i] = sn_mat33_mul_v(c->b.ii, tb[i]);
	}
	double k[9];
	double m = c->a.im + c->b.im;
	for (int i = 0; i < dims; ++i)
	{
		for (int j = 0; j < dims; ++j)
		{
			k[i * dims + j] = m * sn_dot(e[i], e[j]) + sn_dot(ta[i], ia[j]) + sn_dot(tb[i], ib[j]);
		}
	}
	// The compliance of a frequency-tuned softness follows the effective mass along dp itself.
	double len = sn_length(dp);
	sn_vec3 n = len > 0.0 ? sn_scale(1.0 / len, dp) : e[0];
	sn_vec3 tn_a = sn_cross(ra, n), tn_b = sn_cross(rb, n);
	double w = m + sn_dot(tn_a, sn_mat33_mul_v(c->a.ii, tn_a)) + sn_dot(tn_b, sn_mat33_mul_v(c->b.ii, tn_b));
	double at = alpha_tilde(soft, w, c->h);
	sn_vec3 p;
	if (isinf(at) || !(w > 0.0) || !subspace_solve(k, dims, e, dp, at, lambda_max, acc, &p))
	{
		return;
	}
	move_side(&c->a, sn_scale(-c->a.im, p), sn_neg(sn_mat33_mul_v(c->a.ii, sn_cross(ra, p))));
	move_side(&c->b, sn_scale(c->b.im, p), sn_mat33_mul_v(c->b.ii, sn_cross(rb, p)));
	c->j->force = sn_mul_add(c->j->force, 1.0 / c->h, p);
}

// The rotation dphi of B relative to A within span(e) (ApplyAngularCorrection for one direction).
static void angular_correction_in(xpbd_ctx* c, const sn_vec3* e, int dims, sn_vec3 dphi, const sn_soft* soft,
								  double lambda_max, sn_vec3* acc)
{
	sn_vec3 ke[3];
	for (int i = 0; i < dims; ++i)
	{
		ke[i] = sn_add(sn_mat33_mul_v(c->a.ii, e[i]), sn_mat33_mul_v(c->b.ii, e[i]));
	}
	double k[9];
	for (int i = 0; i < dims; ++i)
	{
		for (int j = 0; j < dims; ++j)
		{
			k[i * dims + j] = sn_dot(e[i], ke[j]);
		}
	}
	double len = sn_length(dphi);
	sn_vec3 n = len > 0.0 ? sn_scale(1.0 / len, dphi) : e[0];
	double w = sn_dot(n, sn_add(sn_mat33_mul_v(c->a.ii, n), sn_mat33_mul_v(c->b.ii, n)));
	double at = alpha_tilde(soft, w, c->h);
	sn_vec3 p;
	if (isinf(at) || !(w > 0.0) || !subspace_solve(k, dims, e, dphi, at, lambda_max, acc, &p))
	{
		return;
	}
	move_side(&c->a, sn_v3(0, 0, 0), sn_neg(sn_mat33_mul_v(c->a.ii, p)));
	move_side(&c->b, sn_v3(0, 0, 0), sn_mat33_mul_v(c->b.ii, p));
	c->j->torque = sn_mul_add(c->j->torque, 1.0 / c->h, p);
}

void xpbd_apply_linear_correction(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 n, sn_vec3 dp, const sn_soft* soft,
								  double lambda_max, sn_vec3* lambda)
{
	linear_correction_in(c, p1, p2, &n, 1, dp, soft, lambda_max, lambda);
}

void xpbd_apply_angular_correction(xpbd_ctx* c, sn_vec3 n, sn_vec3 dphi, const sn_soft* soft, double lambda_max,
								   sn_vec3* lambda)
{
	angular_correction_in(c, &n, 1, dphi, soft, lambda_max, lambda);
}

double xpbd_apply_linear_velocity_correction(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 dv, double compliance)
{
	double len = sn_length(dv);
	if (!(len > 0.0))
	{
		return 0.0;
	}
	sn_vec3 n = sn_scale(1.0 / len, dv);
	sn_vec3 ta = sn_cross(sn_sub(p1, side_com(&c->a)), n);
	sn_vec3 tb = sn_cross(sn_sub(p2, side_com(&c->b)), n);
	sn_vec3 ia = sn_mat33_mul_v(c->a.ii, ta);
	sn_vec3 ib = sn_mat33_mul_v(c->b.ii, tb);
	double w = c->a.im + sn_dot(ta, ia) + c->b.im + sn_dot(tb, ib);
	if (!(w + compliance > 0.0))
	{
		return 0.0;
	}
	double lambda = len / (w + compliance);
	push_side(&c->a, sn_scale(-c->a.im * lambda, n), sn_scale(-lambda, ia));
	push_side(&c->b, sn_scale(c->b.im * lambda, n), sn_scale(lambda, ib));
	c->j->force = sn_mul_add(c->j->force, lambda, n);
	return lambda;
}

double xpbd_apply_angular_velocity_correction(xpbd_ctx* c, sn_vec3 dw, double compliance)
{
	double len = sn_length(dw);
	if (!(len > 0.0))
	{
		return 0.0;
	}
	sn_vec3 n = sn_scale(1.0 / len, dw);
	sn_vec3 ia = sn_mat33_mul_v(c->a.ii, n);
	sn_vec3 ib = sn_mat33_mul_v(c->b.ii, n);
	double w = sn_dot(n, ia) + sn_dot(n, ib);
	if (!(w + compliance > 0.0))
	{
		return 0.0;
	}
	double lambda = len / (w + compliance);
	push_side(&c->a, sn_v3(0, 0, 0), sn_scale(-lambda, ia));
	push_side(&c->b, sn_v3(0, 0, 0), sn_scale(lambda, ib));
	c->j->torque = sn_mul_add(c->j->torque, lambda, n);
	return lambda;
}

static sn_vec3 point_velocity(const xpbd_side* s, sn_vec3 p)
{
	if (s->b == NULL)
	{
		return sn_v3(0, 0, 0);
	}
	return sn_add(s->s->v, sn_cross(s->s->w, sn_sub(p, side_com(s))));
}

// Angular velocity of a side: the world's is zero; static bodies read the ground slot (zero) and
// kinematic bodies their set velocity.
static sn_vec3 side_spin(const xpbd_side* s)
{
	return s->b != NULL ? s->s->w : sn_v3(0, 0, 0);
}

static double linear_inverse_mass(const xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 n)
{
	sn_vec3 ta = sn_cross(sn_sub(p1, side_com(&c->a)), n);
	sn_vec3 tb = sn_cross(sn_sub(p2, side_com(&c->b)), n);
	return c->a.im + sn_dot(ta, sn_mat33_mul_v(c->a.ii, ta)) + c->b.im + sn_dot(tb, sn_mat33_mul_v(c->b.ii, tb));
}

static double angular_inverse_mass(const xpbd_ctx* c, sn_vec3 n)
{
	return sn_dot(n, sn_mat33_mul_v(c->a.ii, n)) + sn_dot(n, sn_mat33_mul_v(c->b.ii, n));
}

void xpbd_damp_linear(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 n, const sn_soft* soft)
{
	double compliance = damping_compliance(soft, linear_inverse_mass(c, p1, p2, n), c->h);
	if (isinf(compliance))
	{
		return;
	}
	sn_vec3 dv = sn_sub(point_velocity(&c->b, p2), point_velocity(&c->a, p1));
	double dvn = sn_dot(n, dv);
	xpbd_apply_linear_velocity_correction(c, p1, p2, sn_scale(-dvn, n), compliance);
}

void xpbd_damp_angular(xpbd_ctx* c, sn_vec3 n, const sn_soft* soft)
{
	double compliance = damping_compliance(soft, angular_inverse_mass(c, n), c->h);
	if (isinf(compliance))
	{
		return;
	}
	double dwn = sn_dot(n, sn_sub(side_spin(&c->b), side_spin(&c->a)));
	xpbd_apply_angular_velocity_correction(c, sn_scale(-dwn, n), compliance);
}

// Damp the relative velocity dv of p2 against p1 along its own direction, for blocks that constrain
// more than one direction (the notes' ApplyLinearVelocityCorrection with n = dv / |dv|).
static void damp_linear_vector(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, sn_vec3 dv, const sn_soft* soft)
{
	double len = sn_length(dv);
	if (len > 0.0)
	{
		xpbd_damp_linear(c, p1, p2, sn_scale(1.0 / len, dv), soft);
	}
}

static bool has_damping(const sn_soft* soft)
{
	return soft != NULL && soft->kind != SN_SOFT_RIGID;
}

// ---- a joint's locks as one block ---------------------------------------------------------------------

void xpbd_lock_block(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, const sn_vec3* el, const double* dl, int nl,
					 const sn_vec3* ea, const double* da, int na, const sn_soft* soft, double* acc)
{
	enum
	{
		N = 6
	};
	int n = nl + na;
	sn_vec3 ra = sn_sub(p1, side_com(&c->a)), rb = sn_sub(p2, side_com(&c->b));
	sn_vec3 ta[N], tb[N]; // levers of the linear directions; the angular ones act directly
	for (int i = 0; i < nl; ++i)
	{
		ta[i] = sn_cross(ra, el[i]);
		tb[i] = sn_cross(rb, el[i]);
	}
	// Response of direction j per unit multiplier: rotations of A and B (A's sign folded in below).
	sn_vec3 wa[N], wb[N];
	for (int j = 0; j < n; ++j)
	{
		sn_vec3 ua = j < nl ? ta[j] : ea[j - nl];
		sn_vec3 ub = j < nl ? tb[j] : ea[j - nl];
		wa[j] = sn_mat33_mul_v(c->a.ii, ua);
		wb[j] = sn_mat33_mul_v(c->b.ii, ub);
	}
	double m = c->a.im + c->b.im;
	double k[N * N], rhs[N] = { 0.0 }, l[N * N], d_inv[N], dl_out[N];
	for (int i = 0; i < n; ++i)
	{
		sn_vec3 ua = i < nl ? ta[i] : ea[i - nl];
		sn_vec3 ub = i < nl ? tb[i] : ea[i - nl];
		for (int j = 0; j < n; ++j)
		{
			double v = sn_dot(ua, wa[j]) + sn_dot(ub, wb[j]);
			if (i < nl && j < nl)
			{
				v += m * sn_dot(el[i], el[j]);
			}
			k[i * n + j] = v;
		}
	}
	for (int i = 0; i < n; ++i)
	{
		// Frequency-tuned softness: each direction's own effective mass, as each PGS row has.
		double at = alpha_tilde(soft, k[i * n + i], c->h);
		if (isinf(at))
		{
			return;
		}
		k[i * n + i] += at;
		rhs[i] = (i < nl ? dl[i] : da[i - nl]) - at * acc[i];
	}
	if (n == 0 || !ldlt_factor(k, n, l, d_inv))
	{
		return;
	}
	ldlt_solve(l, d_inv, n, rhs, dl_out);
	sn_vec3 p = sn_v3(0, 0, 0), q = sn_v3(0, 0, 0);
	for (int i = 0; i < n; ++i)
	{
		acc[i] += dl_out[i];
		if (i < nl)
		{
			p = sn_mul_add(p, dl_out[i], el[i]);
		}
		else
		{
			q = sn_mul_add(q, dl_out[i], ea[i - nl]);
		}
	}
	sn_vec3 ra_p = sn_add(sn_cross(ra, p), q), rb_p = sn_add(sn_cross(rb, p), q);
	move_side(&c->a, sn_scale(-c->a.im, p), sn_neg(sn_mat33_mul_v(c->a.ii, ra_p)));
	move_side(&c->b, sn_scale(c->b.im, p), sn_mat33_mul_v(c->b.ii, rb_p));
	c->j->force = sn_mul_add(c->j->force, 1.0 / c->h, p);
	c->j->torque = sn_mul_add(c->j->torque, 1.0 / c->h, q);
}

// ---- corrections along a joint's free axis ------------------------------------------------------------

// A correction e (m or rad) of a free coordinate of the joint along its projected row (joint/joint.h,
// builder_project_free_rows): the row's gradient with the joint's locks held, so B moves the way the
// joint lets it (a hinged bob turns about the hinge, not about its own centre) and w is the inverse
// effective mass of the axis with the locks holding. The multiplier mu moves the coordinate by w mu;
// the row's impulse is sign mu. In the velocity pass: the damping of the coordinate's rate.
static void axis_correction(xpbd_ctx* c, const xpbd_axis* along, double e, const sn_soft* soft, double lambda_max,
							sn_vec3* acc)
{
	const row* r = along->r;
	double w = r->k;
	if (!(w > 0.0))
	{
		return;
	}
	if (c->pass == XPBD_VELOCITY)
	{
		double dc = damping_compliance(soft, w, c->h);
		if (!has_damping(soft) || isinf(dc))
		{
			return;
		}
		double rate = along->sign * row_cdot(r, c->bodies);
		double p = along->sign * (-rate / (w + dc));
		row_apply(r, c->bodies, p);
		account(c->j, r, p);
		return;
	}
	double at = alpha_tilde(soft, w, c->h);
	if (isinf(at))
	{
		return;
	}
	double mu = acc->x;
	double next = mu + (e - at * mu) / (w + at);
	next = next > lambda_max ? lambda_max : (next < -lambda_max ? -lambda_max : next);
	acc->x = next;
	double p = along->sign * (next - mu);
	move_side(&c->a, sn_scale(-r->ma * p, r->lin), sn_scale(p, r->ia));
	move_side(&c->b, sn_scale(r->mb * p, r->lin), sn_scale(p, r->ib));
	account(c->j, r, p / c->h);
}

// ---- blocks ------------------------------------------------------------------------------------------

void xpbd_attach(xpbd_ctx* c, sn_vec3 p1, sn_vec3 p2, double rest, sn_vec3 fallback, const sn_soft* soft,
				 sn_vec3* lambda)
{
	sn_vec3 d = sn_sub(p2, p1);
	double len = sn_length(d);
	sn_vec3 n = len > 1e-9 ? sn_scale(1.0 / len, d) : fallback;
	if (c->pass == XPBD_POSITION)
	{
		if (rest == 0.0)
		{
			linear_correction_in(c, p1, p2, world_axes, 3, sn_neg(d), soft, INFINITY, lambda);
		}
		else
		{
			xpbd_apply_linear_correction(c, p1, p2, n, sn_scale(-(len - rest), n), soft, INFINITY, lambda);
		}
		return;
	}
	if (!has_damping(soft))
	{
		return;
	}
	if (rest == 0.0)
	{
		damp_linear_vector(c, p1, p2, sn_sub(point_velocity(&c->b, p2), point_velocity(&c->a, p1)), soft);
	}
	else
	{
		xpbd_damp_linear(c, p1, p2, n, soft);
	}
}

void xpbd_restrict_to_axis(xpbd_ctx* c, sn_vec3 a, sn_vec3 p1, sn_vec3 p2, double pmin, double pmax,
						   const sn_soft* soft, sn_vec3* lambda)
{
	sn_vec3 p = sn_sub(p2, p1);
	double pa = sn_dot(a, p);
	double clamped = pa < pmin ? pmin : (pa > pmax ? pmax : pa);
	if (c->pass == XPBD_POSITION)
	{
		sn_vec3 corr = sn_sub(p, sn_scale(clamped, a));
		if (clamped != pa)
		{
			linear_correction_in(c, p2, p2, world_axes, 3, sn_neg(corr), soft, INFINITY, lambda);
		}
		else
		{
			sn_vec3 e[2];
			vec3_plane_basis(a, e, e + 1);
			linear_correction_in(c, p2, p2, e, 2, sn_neg(corr), soft, INFINITY, lambda);
		}
		return;
	}
	if (!has_damping(soft))
	{
		return;
	}
	sn_vec3 dv = sn_sub(point_velocity(&c->b, p2), point_velocity(&c->a, p2));
	if (clamped == pa)
	{
		dv = sn_sub(dv, sn_scale(sn_dot(a, dv), a)); // inside the range: only the line constraint acts
	}
	damp_linear_vector(c, p2, p2, dv, soft);
}

void xpbd_limit_along_axis(xpbd_ctx* c, sn_vec3 a, sn_vec3 p1, sn_vec3 p2, double pmin, double pmax,
						   const sn_soft* soft, double lambda_max, const xpbd_axis* along, sn_vec3* lambda)
{
	double x = sn_dot(a, sn_sub(p2, p1));
	double target = x < pmin ? pmin : (x > pmax ? pmax : x);
	if (pmin != pmax && target == x)
	{
		return; // inside the limits
	}
	if (along != NULL && along->r != NULL)
	{
		axis_correction(c, along, target - x, soft, lambda_max, lambda);
	}
	else if (c->pass == XPBD_POSITION)
	{
		xpbd_apply_linear_correction(c, p2, p2, a, sn_scale(target - x, a), soft, lambda_max, lambda);
	}
	else if (has_damping(soft))
	{
		xpbd_damp_linear(c, p2, p2, a, soft);
	}
}

void xpbd_align_axes(xpbd_ctx* c, sn_vec3 a1, sn_vec3 a2, const sn_soft* soft, sn_vec3* lambda)
{
	if (c->pass == XPBD_POSITION)
	{
		sn_vec3 u = sn_cross(a2, a1);
		double s = sn_length(u);
		double angle = atan2(s, sn_dot(a1, a2));
		sn_vec3 e[2];
		vec3_plane_basis(a1, e, e + 1);
		angular_correction_in(c, e, 2, s > 0.0 ? sn_scale(angle / s, u) : sn_v3(0, 0, 0), soft, INFINITY, lambda);
		return;
	}
	if (!has_damping(soft))
	{
		return;
	}
	sn_vec3 dw = sn_sub(side_spin(&c->b), side_spin(&c->a));
	dw = sn_sub(dw, sn_scale(sn_dot(a1, dw), a1));
	double len = sn_length(dw);
	if (len > 0.0)
	{
		xpbd_damp_angular(c, sn_scale(1.0 / len, dw), soft);
	}
}

void xpbd_limit_angle(xpbd_ctx* c, sn_vec3 n, sn_vec3 a1, sn_vec3 a2, double lo, double hi, const sn_soft* soft,
					  double lambda_max, const xpbd_axis* along, sn_vec3* lambda)
{
	double phi = atan2(sn_dot(sn_cross(a1, a2), n), sn_dot(a1, a2));
	double target = phi < lo ? lo : (phi > hi ? hi : phi);
	if (lo != hi && target == phi)
	{
		return; // inside the limits
	}
	if (along != NULL && along->r != NULL)
	{
		axis_correction(c, along, wrap_angle(target - phi), soft, lambda_max, lambda);
	}
	else if (c->pass == XPBD_POSITION)
	{
		xpbd_apply_angular_correction(c, n, sn_scale(wrap_angle(target - phi), n), soft, lambda_max, lambda);
	}
	else if (has_damping(soft))
	{
		xpbd_damp_angular(c, n, soft);
	}
}

// ---- generic rows ------------------------------------------------------------------------------------

// Displacement of the joint's two bodies since its rows were built.
typedef struct row_drift
{
	sn_vec3 dxa, dta, dxb, dtb;
} row_drift;

static double row_error_now(const row* r, const row_drift* d)
{
	return r->c0 + sn_dot(r->lin, sn_sub(d->dxb, d->dxa)) + sn_dot(r->ang_a, d->dta) + sn_dot(r->ang_b, d->dtb);
}

static void row_move(xpbd_ctx* c, const row* r, row_drift* d, double lambda)
{
	sn_vec3 dxa = sn_scale(-r->ma * lambda, r->lin), dta = sn_scale(lambda, r->ia);
	sn_vec3 dxb = sn_scale(r->mb * lambda, r->lin), dtb = sn_scale(lambda, r->ib);
	d->dxa = sn_add(d->dxa, dxa);
	d->dta = sn_add(d->dta, dta);
	d->dxb = sn_add(d->dxb, dxb);
	d->dtb = sn_add(d->dtb, dtb);
	move_side(&c->a, dxa, dta);
	move_side(&c->b, dxb, dtb);
	account(c->j, r, lambda / c->h);
}

static void solve_block_position(xpbd_ctx* c, const row* rows, const row_block* blk, row_drift* d)
{
	double rhs[ROW_BLOCK_MAX] = { 0.0 }, lambda[ROW_BLOCK_MAX];
	for (int i = 0; i < blk->n; ++i)
	{
		rhs[i] = -row_error_now(rows + i, d);
	}
	ldlt_solve(blk->l, blk->d_inv, blk->n, rhs, lambda);
	for (int i = 0; i < blk->n; ++i)
	{
		row_move(c, rows + i, d, lambda[i]);
	}
}

static void solve_row_position(xpbd_ctx* c, const row* r, row_drift* d)
{
	if (r->flags & ROW_VELOCITY)
	{
		return; // motors act in the velocity pass
	}
	double* acc = c->lam->row + r->slot;
	double err = row_error_now(r, d);
	if ((r->flags & ROW_UNILATERAL) && err >= 0.0 && *acc == 0.0)
	{
		return;
	}
	double at = 0.0;
	if (r->flags & ROW_SOFT)
	{
		double dc;
		soft_xpbd_for(r->soft, r->k, c->h, &at, &dc);
		if (isinf(at))
		{
			return;
		}
	}
	double next = *acc - (err + at * *acc) / (r->k + at);
	double lo = r->lo * c->h, hi = r->hi * c->h; // impulse bounds F h become F h^2; limits keep lambda >= 0
	next = next < lo ? lo : (next > hi ? hi : next);
	double lambda = next - *acc;
	*acc = next;
	row_move(c, r, d, lambda);
}

static void solve_row_velocity(xpbd_ctx* c, const sn_world* world, const row* r)
{
	solver_body* bodies = world->solver_bodies;
	double cdot = row_cdot(r, bodies);
	double lambda;
	if (r->flags & ROW_VELOCITY)
	{
		lambda = -(cdot - r->target_speed) / r->k;
	}
	else if (r->flags & ROW_SOFT)
	{
		if ((r->flags & ROW_UNILATERAL) && r->c0 >= 0.0)
		{
			return;
		}
		double at, dc;
		soft_xpbd_for(r->soft, r->k, c->h, &at, &dc);
		if (isinf(dc))
		{
			return;
		}
		lambda = -cdot / (r->k + dc);
	}
	else
	{
		return;
	}
	lambda = lambda < r->lo ? r->lo : (lambda > r->hi ? r->hi : lambda);
	row_apply(r, bodies, lambda);
	account(c->j, r, lambda);
}

int xpbd_build_rows(xpbd_ctx* c, const sn_world* world, row* rows, row_block* blocks)
{
	static const double no_warm[JOINT_SLOTS] = { 0.0 };
	joint_frame f;
	joint_frame_compute(world, c->j, &f);
	row_builder b;
	b.world = NULL; // joints on articulation links are solved in the articulations' pass
	b.links = false;
	b.joint_index = (int32_t)(c->j - world->joints);
	b.sa = body_solver_index(world, c->j->body_a);
	b.sb = body_solver_index(world, c->j->body_b);
	b.ma = c->a.im;
	b.mb = c->b.im;
	b.inv_ia = c->a.ii;
	b.inv_ib = c->b.ii;
	b.h = c->h;
	b.rigid_bias_rate = 0.0;
	b.rows = rows;
	b.count = 0;
	b.blocks = blocks;
	b.block_count = 0;
	b.warm = no_warm;
	b.project_free_rows = true;
	joint_build_rows(world, c->j, &f, &b);
	return b.count;
}

void xpbd_solve_rows(xpbd_ctx* c, const sn_world* world, int slot_lo, int slot_hi)
{
	row rows[XPBD_MAX_ROWS];
	row_block blocks[2];
	int count = xpbd_build_rows(c, world, rows, blocks);
	struct
	{
		int count;
	} b = { count };
	row_drift drift;
	memset(&drift, 0, sizeof(drift));
	for (int i = 0; i < b.count; ++i)
	{
		const row* r = rows + i;
		int n = r->block >= 0 ? blocks[r->block].n : 1;
		if (r->slot < slot_lo || r->slot > slot_hi)
		{
			i += n - 1;
			continue;
		}
		if (c->pass == XPBD_VELOCITY)
		{
			solve_row_velocity(c, world, r);
		}
		else if (r->block >= 0)
		{
			solve_block_position(c, r, blocks + r->block, &drift);
			i += n - 1;
		}
		else
		{
			solve_row_position(c, r, &drift);
		}
	}
}
