// The contact solver's records (contact/solver.c): one constraint per manifold of the step's pair cache,
// whose two sides are each the ground (the world or a static body), a maximal-coordinate body (dynamic
// or kinematic: a solver body of constraint/row.h) or an articulation link (its articulation's active
// slots, artic/solve.c). Built once per step from the manifolds; solved by PGS and TGS in the same
// sweeps as the joint and articulation rows (contact/solver.c), by XPBD (solver/xpbd.c) and by DIRECT
// (solver/direct.c).
#ifndef SINEW_CONTACT_SOLVER_H
#define SINEW_CONTACT_SOLVER_H

#include "collide/manifold.h"
#include "constraint/soft.h"

#include "sinew/math.h"

typedef struct sn_world sn_world;

typedef enum contact_side_kind
{
	SIDE_GROUND = 0, // the world or a static body: never moves
	SIDE_BODY = 1,   // a dynamic or kinematic body (a solver body; kinematic ones have no inverse mass)
	SIDE_LINK = 2,   // an articulation link
} contact_side_kind;

typedef struct contact_side
{
	uint8_t kind;   // contact_side_kind
	int32_t body;   // body slot, -1 for the world
	int32_t solver; // SIDE_BODY: its solver body index in the current solve
	int32_t artic;  // SIDE_LINK: articulation slot
	int32_t link;   // SIDE_LINK: link index
} contact_side;

// Rows of a point: the normal and two friction directions.
enum
{
	CONTACT_ROWS = 3
};

// XPBD worlds solve the constraints without a link side by position corrections (solver/xpbd_contacts.c),
// with these fields: ra, rb and q_a, q_b the levers and orientations at the world substep's start; s the
// separation the substep holds the point to; acc the substep's multipliers (N*s^2); vn0 the normal speed
// at the substep's start; step_total as here.
typedef struct contact_solver_point
{
	// What every sweep reads (first, so that the sweeps touch the fewest cache lines of the record).
	double acc[CONTACT_ROWS];  // impulses of the current window (PGS: of the solve), N*s
	double mass[CONTACT_ROWS]; // effective masses 1 / K of the rows, kg
	double s;                  // separation now (start of the window), m
	double push;               // pseudo impulse of the window (split impulse), N*s
	sn_vec3 ra, rb;            // SIDE_BODY: the anchor minus the centre of mass, world, at the solve's start, m
	sn_vec3 ia[CONTACT_ROWS];  // SIDE_BODY A: I^-1 (r_a x d) of each row's direction d (the solve's inertia)
	sn_vec3 ib[CONTACT_ROWS];  // SIDE_BODY B: I^-1 (r_b x d)
	int64_t jac_a, jac_b;      // SIDE_LINK: offsets of the rows' J and W J^T in the scratch (-1: none)
	soft_coefficients coef;    // soft contacts: the normal row's coefficients for the solve
	// What each window reads.
	sn_vec3 rn_a, rn_b;           // SIDE_BODY: r x n: the separation changes by n . dcom + theta . (r x n)
	double offset_a, offset_b;    // n . (anchor now - x0) of each side at the start of the solve, m
	double s0;                    // separation at the start of the step, m
	double warm[CONTACT_ROWS];    // forces the last solve ended with, N: each window starts from force * window
	double hold[CONTACT_ROWS];    // TGS, a held constraint: the impulse that holds the kick (contact_solve_hold), N*s
	double counted[CONTACT_ROWS]; // the part of acc already added to the totals, N*s
	double solve_total[CONTACT_ROWS]; // impulses of the current solve, N*s
	// Per solve and per step.
	double step_total[CONTACT_ROWS]; // impulses of the current step, N*s
	double k[CONTACT_ROWS];          // K = J M^-1 J^T of the rows, 1/kg
	double vn0;                      // relative normal speed at the start of the solve (restitution), m/s
	sn_vec3 x0;                      // the manifold's point at the start of the step, world, m
	sn_vec3 local_a, local_b;        // that point in A's and B's body frames (frame origin), m
	sn_quat q_a, q_b;                // XPBD, SIDE_BODY: orientations at the substep's start
} contact_solver_point;

typedef struct contact_constraint
{
	contact_side a, b;
	int32_t manifold;              // index into contacts.manifolds
	sn_vec3 normal;                // world, from A to B
	sn_vec3 tangent[2];            // friction directions (normal, tangent[0], tangent[1] right-handed)
	double friction;               // mixed coefficient
	double restitution;            // mixed coefficient
	bool soft;                     // the mixed softness is not rigid
	sn_soft softness;              // per manifold: its points share the stiffness (a box on four points sinks F c)
	bool same_artic;               // both sides are links of one articulation: side B's rows carry J_B - J_A
	double inv_mass_a, inv_mass_b; // SIDE_BODY: inverse masses for the solve (0 for kinematic bodies), 1/kg
	bool has_link; // a link side, or a body of an articulation's island in XPBD and DIRECT worlds: solved
				   // by the articulations' TGS path there (contact_link_pass_tgs)
	bool holds;    // this solve holds the articulations' kick on it (contact_solve_hold)
	int point_count;
	contact_solver_point* points; // [point_count] in the solver's pool (the step's points, dense)
	// K_ij = J_i M^-1 J_j^T among the normal rows of the points, for the solve (the block solve), the
	// Cholesky factor of K + eps I over all the points, and the sets of pushing points that solved the last
	// real and pseudo blocks (tried first: a resting manifold keeps its set).
	double block_k[COLLIDE_MANIFOLD_POINTS][COLLIDE_MANIFOLD_POINTS];
	double block_l[COLLIDE_MANIFOLD_POINTS][COLLIDE_MANIFOLD_POINTS];
	bool block_factored;
	uint8_t block_mask[2];
} contact_constraint;

typedef struct contact_solver
{
	contact_constraint* constraints;
	int count;
	int capacity;
	contact_solver_point* points; // the constraints' points, in constraint order
	int point_count;
	int point_capacity;
	double* jac; // link sides' Jacobians and W J^T (per point and side: 3 rows x 2 vectors of the slots)
	int64_t jac_used;
	int64_t jac_capacity;
	int link_constraints; // constraints with a link side
	bool links_only;      // the solve takes only the constraints with a link side (XPBD and DIRECT worlds)
	double h;             // length of the current solve, s
	double hw;            // length of its windows, s
	int windows;          // 1 for PGS
	double bias_rate;     // rigid contacts' correction rate per window, 1/s
} contact_solver;

// ---- preparation (contact/solver.c) --------------------------------------------------------------------

// Room for the constraints of at most `manifolds` manifolds and `jac_doubles` doubles of link-side
// Jacobians (contact_prepare computes the bounds before the step changes anything).
bool contact_solver_reserve(sn_world* world, int manifolds, int64_t jac_doubles);
void contact_solver_release(sn_world* world);
// The doubles a pair of shapes' link sides may need in a step: `manifolds` manifolds of four points.
int64_t contact_solver_link_demand(const sn_world* world, int32_t shape_a, int32_t shape_b, int manifolds);
// Build the step's constraints from the pair cache (after contact_update), at the step's start poses.
void contact_solver_build(sn_world* world, double dt);
// Mark the links with contact rows for the articulations' next solve (artic_mark_contact_link); called
// before every artic_solve_begin.
void contact_solver_mark_links(sn_world* world);
// Write the step's impulses back into the manifolds' points (warm starts of the next step, readback).
void contact_solver_store(sn_world* world);

// ---- PGS and TGS (contact/solver.c) ---------------------------------------------------------------------

// XPBD and DIRECT worlds: their solver steps the islands without articulations; the islands with one (its
// links and the bodies, joints and contacts that connect to it: island_mark_articulated) then take a TGS
// solve of length h (solver/pgs_tgs.c with the solver slots and contacts of those islands only).
void contact_link_pass_tgs(sn_world* world, double h);

// Start a solve of length h in `windows` windows (after artic_solve_begin): link sides' Jacobians and
// responses, each point's separation offsets and approach speed.
void contact_solve_begin(sn_world* world, double h, int windows);
// TGS with more than one window (after contact_solve_begin, before the first window): the impulses that
// hold the articulations' free-motion kick on their rigid contacts with the ground or with links, applied
// at once; each window then owns an equal share of them.
void contact_solve_hold(sn_world* world);
// Start a window (after the bodies' solver slots are prepared): body sides' anchors and masses, the
// separations now, the window's warm starts.
void contact_window_begin(sn_world* world);
// One Gauss-Seidel sweep over every contact: position sweeps also correct penetration by split impulse;
// `frozen` (TGS velocity sweeps) leaves soft contacts as they are.
void contact_solve_sweep(sn_world* world, bool position, bool frozen);
// Restitution after the velocity sweeps (Box2D's relax-then-restitute): points that approached faster
// than the threshold and pushed in this solve rebound at -e times their approach speed.
void contact_solve_restitution(sn_world* world);
// End of a window: its impulses into the solve's and the step's totals.
void contact_window_end(sn_world* world);
// End of a solve: the forces the next solve warm-starts from.
void contact_solve_end(sn_world* world);
// The normal rows of one manifold's n points as one linear complementarity problem: x >= 0 with
// w = K x + b >= 0 and x_i w_i = 0 (K the rows' J M^-1 J^T, b their values at x = 0). False (x untouched)
// if no set of pushing points satisfies it to rounding. Also the XPBD position pass's manifold block.
bool contact_block_lcp(int n, const double (*k)[COLLIDE_MANIFOLD_POINTS], const double* b, double* x);

#endif
