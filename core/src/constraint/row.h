// A constraint row between two solver bodies: the one primitive every maximal-coordinate joint is made
// of, solved by sequential impulses in PGS and TGS and assembled into a matrix by the direct solver.
//
// Jacobian convention: Cdot = lin . (vB - vA) + ang_a . wA + ang_b . wB. The impulse P along the row
// changes vA -= mA lin P, wA += IA^-1 ang_a P, vB += mB lin P, wB += IB^-1 ang_b P.
// Unilateral rows keep C >= 0 with P >= 0. While C > 0 they are speculative: they only stop the gap
// from closing faster than C/h, and exert nothing otherwise.
#ifndef SINEW_ROW_H
#define SINEW_ROW_H

#include "constraint/soft.h"

#include "sinew/math.h"

enum row_flags
{
	ROW_UNILATERAL = 1 << 0, // P >= 0, C >= 0
	ROW_SOFT = 1 << 1,       // soft coefficients (a spring or compliant row)
	ROW_VELOCITY = 1 << 2,   // a motor: no position term
	ROW_LINK = 1 << 3,       // a side is an articulation link (constraint/link_row.h adds its part)
};

typedef struct solver_body
{
	sn_vec3 v, w;       // linear (m/s, of the centre of mass) and angular (rad/s) velocity
	sn_vec3 vp, wp;     // pseudo velocities of position correction (split impulse), zeroed each solve
	sn_vec3 dp, dtheta; // displacement and rotation vector accumulated in this (sub)step, m and rad
} solver_body;

typedef struct row
{
	int32_t a, b;   // solver body indices; 0 is the static ground
	int32_t joint;  // owning joint index
	int16_t slot;   // warm-start slot in the joint
	uint16_t flags; // row_flags
	sn_vec3 lin, ang_a, ang_b;
	sn_vec3 ia, ib;        // IA^-1 ang_a and IB^-1 ang_b, world frame
	sn_vec3 anchor_torque; // torque on B about its joint anchor per unit impulse (forces out)
	double ma, mb;         // inverse masses
	double k;              // J M^-1 J^T
	double c0;             // position error when the row was built, m or rad
	double target_speed;   // motor speed or spring target velocity
	double lo, hi;         // bounds on the accumulated impulse of one (sub)step, N*s
	sn_soft soft;          // the row's softness (rigid for hard rows)
	soft_coefficients coef;
	double impulse; // accumulated impulse of the current (sub)step, N*s
	double push;    // accumulated position-correction impulse (pseudo velocities), N*s
	double total;   // impulse summed over the whole step, N*s (for forces out)
	int32_t block;  // index of the block this row starts, or -1
	// ROW_LINK: the link sides' articulation slots (-1: the side is a body or the ground) and the offsets
	// of their J and W J^T over the articulation's active slots in the world's link-row scratch (the side
	// itself counts as the ground in a, b, ma, mb, ia, ib). Two links of one articulation: side B holds
	// both, J_A + J_B.
	int32_t link_a, link_b;
	int32_t jac_a, jac_b;
} row;

// The rigid bilateral lock rows of one joint are solved together: dP = -K^-1 (Cdot + bias) with the
// block's K_ij = J_i M^-1 J_j^T. A point constraint on a body with small inertia has K eigenvalues that
// differ by orders of magnitude (1/m along the arm, 1/m + r^2/I across it); scalar Gauss-Seidel on such
// rows converges slowly, the block solve is exact for the joint alone.
enum
{
	ROW_BLOCK_MAX = 6
};

typedef struct row_block
{
	int32_t first;                           // first row
	int32_t n;                               // rows in the block, 2..ROW_BLOCK_MAX
	double l[ROW_BLOCK_MAX * ROW_BLOCK_MAX]; // K = L D L^T: unit lower L, row-major
	double d_inv[ROW_BLOCK_MAX];             // 1 / D
} row_block;

static inline double row_cdot(const row* r, const solver_body* bodies)
{
	const solver_body* A = bodies + r->a;
	const solver_body* B = bodies + r->b;
	return sn_dot(r->lin, sn_sub(B->v, A->v)) + sn_dot(r->ang_a, A->w) + sn_dot(r->ang_b, B->w);
}

static inline double row_cdot_push(const row* r, const solver_body* bodies)
{
	const solver_body* A = bodies + r->a;
	const solver_body* B = bodies + r->b;
	return sn_dot(r->lin, sn_sub(B->vp, A->vp)) + sn_dot(r->ang_a, A->wp) + sn_dot(r->ang_b, B->wp);
}

static inline void row_apply_push(const row* r, solver_body* bodies, double p)
{
	solver_body* A = bodies + r->a;
	solver_body* B = bodies + r->b;
	A->vp = sn_mul_add(A->vp, -r->ma * p, r->lin);
	A->wp = sn_mul_add(A->wp, p, r->ia);
	B->vp = sn_mul_add(B->vp, r->mb * p, r->lin);
	B->wp = sn_mul_add(B->wp, p, r->ib);
}

// A rigid row whose position error is corrected by split impulse: not soft, not a motor, and not a
// force-bounded equality (a servo with a force cap corrects inside its velocity solve instead).
static inline bool row_splits(const row* r)
{
	if (r->flags & (ROW_SOFT | ROW_VELOCITY))
	{
		return false;
	}
	return (r->flags & ROW_UNILATERAL) || (isinf(r->lo) && isinf(r->hi));
}

// Position error now: c0 plus the linearised displacement accumulated since the row was built.
static inline double row_c_now(const row* r, const solver_body* bodies)
{
	const solver_body* A = bodies + r->a;
	const solver_body* B = bodies + r->b;
	return r->c0 + sn_dot(r->lin, sn_sub(B->dp, A->dp)) + sn_dot(r->ang_a, A->dtheta) + sn_dot(r->ang_b, B->dtheta);
}

static inline void row_apply(const row* r, solver_body* bodies, double p)
{
	solver_body* A = bodies + r->a;
	solver_body* B = bodies + r->b;
	A->v = sn_mul_add(A->v, -r->ma * p, r->lin);
	A->w = sn_mul_add(A->w, p, r->ia);
	B->v = sn_mul_add(B->v, r->mb * p, r->lin);
	B->w = sn_mul_add(B->w, p, r->ib);
}

// J_i M^-1 J_j^T for two rows on the same pair of bodies.
static inline double row_coupling(const row* ri, const row* rj)
{
	return (ri->ma + ri->mb) * sn_dot(ri->lin, rj->lin) + sn_dot(ri->ang_a, rj->ia) + sn_dot(ri->ang_b, rj->ib);
}

// Effective inverse mass J M^-1 J^T of a row whose Jacobian, masses and ia/ib are set.
static inline double row_inverse_mass(const row* r)
{
	double l2 = sn_dot(r->lin, r->lin);
	return (r->ma + r->mb) * l2 + sn_dot(r->ang_a, r->ia) + sn_dot(r->ang_b, r->ib);
}

#endif
