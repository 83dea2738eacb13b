// Contacts in the DIRECT solve (direct.c): the contact constraints of contact/solver.h whose two sides
// are bodies or the ground become rows of the compliant system, solved with the joints' rows by the
// same sparse LDL^T and active set. Contacts in an articulation's island (a link side, or a body the
// island holds: contact_constraint.has_link) are solved by the articulations' TGS path instead.
//
// Rows. A point with normal n (from A to B), the constraint's tangents t1, t2 and levers r_A, r_B (the
// point carried by each body, minus its centre of mass, at the (sub)step's start) has three rows
//   J_d v = d . (v_B + w_B x r_B - v_A - w_A x r_A),   d = n, t1, t2,
// in constraint/row.h's form lin = d, ang_a = -(r_A x d), ang_b = r_B x d. Its separation at the start
// follows the material points from where the manifold was measured, as in PGS and TGS:
// s = s0 + n . ((x_B - x0) - (x_A - x0)).
//
// Normal row: a limit of direct.c, P_n >= 0, w = J_n v_{n+1} + D P_n - t >= 0, P_n w = 0, with
//   speculative, s > 0   t = -s / h: the gap may close within the step, not cross
//   rigid, s <= 0        t = 0: no approach. Penetration beyond the world's slop, -s - slop, is removed at
//                        erp per step, at most max_push_speed: not by the velocity, as DIRECT's joint
//                        rows correct their error, but by a split impulse with the step's factorisation
//                        (direct.c, push_solve), because a velocity bias turns every correction into
//                        kinetic energy, and a correction that joints prevent (a body jointed in place
//                        inside another) into forces without bound
//   soft, s <= 0         D and t from soft_direct_for with C = s and Cdot = J_n v_n (the joints' soft
//                        rows): at rest k s = -F, so a static load F sinks it by F c; the manifold's
//                        stiffness is shared by its points (contact/solver.c)
//   restitution          a point that approached faster than the restitution threshold (vn0 = J_n v_n
//                        < -threshold) and pushes in the solution aims at t = max(t, -e vn0), rigidly,
//                        and the rounds go on: as in PGS and TGS (Box2D's rule) only a contact that
//                        pushes bounces, and a slow one does not
//
// Friction is Coulomb's law on the disk at each point. With P_t = (P_1, P_2) along (t1, t2) and the
// slip u = J_t v_{n+1}:
//   sticking   u = 0,  |P_t| <= mu P_n
//   sliding    P_t = -mu P_n u / |u|
// The disk, not two rows boxed by |P_i| <= mu P_n (ODE's friction pyramid): a box lets friction reach
// sqrt(2) mu P_n along its diagonal and makes a slide depend on where the tangents happen to point, and
// PGS and TGS project onto the disk: the same scene must mean the same physics in every solver. The
// disk costs nothing in the factorisation (sticking rows are plain equations, sliding rows are outside
// the matrix) and a square root per point and solve.
//
// The scheme. The usual ways to tie the friction bound to the normal force do not fit a factorised
// active set: ODE's findex moves the bounds +-mu P_n with the normal's current value inside Dantzig's
// pivoting (a pyramid, and a dense pivoting solver), box bounds taken from the previous solve's normal
// forces and solved again a fixed number of times hold the bound only for the solve before the last,
// and staggered projections (Kaufman et al., "Staggered Projections for Frictional Contact in Multibody
// Systems", 2008) alternate two quadratic programs, each with its own active set. Here each point's
// friction is part of direct.c's active set, in one of three states:
//   none      while its normal row does not push (a gap, a separating point): both rows held at 0
//   sticking  both rows free: the equations J_t v_{n+1} + D P_t = 0 (D the regularisation below)
//   sliding   both rows held at the impulse F = mu P_n e, e a unit direction in the tangent plane: a row
//             at a bound, outside the matrix, so its value enters only the right-hand side
// A sliding value depends on the same solve's normal impulse and slip direction. For one active set the
// map F -> (solve) -> mu max(P_n, 0) e, e = -u / |u|, is iterated from the last value, each iteration one
// back-substitution with the round's factorisation (the free rows' matrix does not depend on F), until F
// changes by less than DIRECT_CONTACT_ROUNDING of the largest impulse (at most SLIDE_MAX_SOLVES,
// direct.c). It contracts when the friction's leverage on the normal impulses is small: sliding on a
// face of half-width b with the centre of mass a above it, a change dF moves the normals by about
// (a / b) dF, a factor mu a / b per solve (0.3 for the box on the incline), and a translating body's
// slip direction does not depend on F at all. Starting from the last step's impulses, a steady slide
// needs a few solves. A point on the edge of its disk that does not slip (others hold the body) keeps
// its direction: its "slip" is the regularisation's creep.
// The states change in the rounds of the active set, with the other rows' bounds (direct.c):
//   none <-> the others   with the normal: a point that starts to push slides against its slip if it
//                         slips, else sticks
//   sticking -> sliding   when |P_t| > mu P_n (+ round-off); F starts at mu P_n P_t / |P_t|
//   sliding -> sticking   when the point slips and the impulse that would stop its slip by itself,
//                         P_t - u / K_t, lies inside the disk: the friction would reverse the motion
//                         within the step, so the point stops instead
// A point starts as its last impulses tell (on the edge of the disk it slides along them); a new one
// that the free motion brings together slides if it slips faster than friction could stop by itself
// (mu times the impulse that stops the approach, times K_t / K_n), else sticks. After
// ACTIVE_SET_FRICTION_ROUNDS rounds (direct.c) the states of friction stay as they are and only the
// bounds of rows change: stick-slip transitions of a spinning, stopping body can chase each other.
//
// The bounds hold exactly at the end of every step: after the rounds every point's impulses are
// projected, P_n <- max(P_n, 0) and P_t <- P_t min(1, mu P_n / |P_t|), and the velocities rebuilt from the
// impulses if anything moved. When the rounds settled this moves the impulses by round-off only
// (direct_state.last_projection measures it); when they did not it is what keeps the friction inside
// the cone.
//
// Degenerate rows. The four points of a box's face give twelve rows of rank six (the normals rank 3, the
// friction rank 3), and a pile of boxes is statically indeterminate. Rigid contact rows get a compliance
// D = c K_rr (K_rr = J_r M^-1 J_r^T), c = 1e-6 for normals and 1e-3 for friction: A + D is positive
// definite, so the factorisation drops none of the rows and the block principal pivoting works on a
// P-matrix, and the impulses the rows share are the least-norm ones in the metric D: spread evenly over
// redundant points, and carried by the normals where friction could carry them too (friction costs a
// thousand times more). Without that preference a pyramid of boxes starts by passing its weight through
// friction between its columns and wedges itself apart. The active set is decided on that system. Once
// it has settled, the regularisation is taken back by iterative refinement (the proximal point method,
// direct.c): solves with the same factorisation whose right-hand side adds D P of the previous one
// converge to the rigid rows exactly, J v = t, and keep the sharing among redundant rows. A refinement
// that stops converging (rows whose targets no rigid motion meets) stops there.
//
// Conflicts. A rigid contact between bodies that rigid joints hold, each joint correcting its own error,
// has no rigid solution: the regularisation alone decides, with impulses of (mismatch) / D. A contact
// whose regularisation takes more than 1e-3 of the step's speeds (a thousand times what it takes from
// rows that do not fight: 1e-6 of the speed their impulse makes) becomes compliant for the step, D = K,
// which bounds what it exerts by what moves its own effective mass at the mismatch.
//
// The graph. A contact node per pair of shapes (direct.c) holds the rows of the pair's points, 3 per
// point, at most 12 per manifold; nodes that share a dynamic body couple through it.
#include "solver/direct.h"

#include "body.h"
#include "collide/narrowphase.h"
#include "constraint/soft.h"
#include "contact/contact.h"
#include "contact/solver.h"
#include "math/mathx.h"
#include "world.h"

#include <math.h>
#include <string.h>

// The compliances of rigid contact rows, relative to their K (see the top): normal rows, friction rows.
static const double NORMAL_REGULARISATION = 1e-6;
static const double FRICTION_REGULARISATION = 1e-3;
// An approach slower than this is none (round-off of resting bodies' free motion), m/s.
static const double APPROACH = 1e-9;
// A point whose last friction impulse lies within this fraction of the disk's edge starts sliding.
static const double EDGE = 1e-6;

bool direct_contact_node(const sn_world* world, int32_t shape_a, int32_t shape_b, int ends[2], int* cap)
{
	const shape* shapes = world->contacts.shapes;
	const int32_t owners[2] = { shapes[shape_a].body, shapes[shape_b].body };
	if (shapes[shape_a].sensor || shapes[shape_b].sensor)
	{
		return false;
	}
	bool dynamic = false;
	for (int side = 0; side < 2; ++side)
	{
		ends[side] = -1;
		if (owners[side] < 0)
		{
			continue;
		}
		sn_body_type type = world->bodies[owners[side]].type;
		if (type == SN_BODY_LINK)
		{
			return false;
		}
		if (type == SN_BODY_DYNAMIC)
		{
			ends[side] = owners[side];
			dynamic = true;
		}
	}
	bool mesh = shapes[shape_a].geom.type == COLLIDE_MESH || shapes[shape_b].geom.type == COLLIDE_MESH;
	*cap = CONTACT_ROWS * COLLIDE_MANIFOLD_POINTS * (mesh ? COLLIDE_MAX_MANIFOLDS : 1);
	return dynamic;
}

// ---- rows -------------------------------------------------------------------------------------------------

// A side's solver slot and the point it carries now, at its lever from its centre of mass (bodies), and
// its displacement along n since the manifold was measured.
static int side_point(const sn_world* world, const contact_side* s, sn_vec3 local, sn_vec3 x0, sn_vec3 n,
					  sn_vec3* lever, double* offset)
{
	*lever = sn_v3(0, 0, 0);
	*offset = 0.0;
	if (s->kind != SIDE_BODY)
	{
		return 0;
	}
	const body* b = world->bodies + s->body;
	sn_vec3 x = sn_add(b->com, sn_rotate(b->q, sn_sub(local, b->local_com)));
	*lever = sn_sub(x, b->com);
	*offset = sn_dot(n, sn_sub(x, x0));
	return b->solver_index;
}

static double finite_or_zero(double x)
{
	return isfinite(x) ? x : 0.0; // a diverged world's warm start starts nothing
}

// The three rows of one point (rows i, i + 1, i + 2), their targets, compliances and starting states.
static void add_point(sn_world* world, const contact_constraint* cc, contact_solver_point* sp, bool persisted, double h)
{
	direct_state* d = &world->direct;
	const sn_world_def* def = &world->def;
	const sn_vec3 n = cc->normal;
	sn_vec3 ra, rb;
	double off_a, off_b;
	int sa = side_point(world, &cc->a, sp->local_a, sp->x0, n, &ra, &off_a);
	int sb = side_point(world, &cc->b, sp->local_b, sp->x0, n, &rb, &off_b);
	const double s = sp->s0 + off_b - off_a;
	const solver_body_info* ia = world->solver_infos + sa;
	const solver_body_info* ib = world->solver_infos + sb;
	const int i = d->row_count;
	direct_point* dp = d->points + d->point_count;
	dp->sp = sp;
	dp->friction = cc->friction;
	dp->restitution = cc->restitution;
	dp->restituted = false;
	dp->push = 0.0;
	for (int ri = 0; ri < CONTACT_ROWS; ++ri)
	{
		sn_vec3 dir = ri == 0 ? n : cc->tangent[ri - 1];
		row* r = d->rows + i + ri;
		memset(r, 0, sizeof(*r));
		r->a = sa;
		r->b = sb;
		r->joint = -1;
		r->slot = (int16_t)ri;
		r->block = -1;
		r->flags = ri == 0 ? ROW_UNILATERAL : 0;
		r->lin = dir;
		r->ang_a = sa > 0 ? sn_neg(sn_cross(ra, dir)) : sn_v3(0, 0, 0);
		r->ang_b = sb > 0 ? sn_cross(rb, dir) : sn_v3(0, 0, 0);
		r->ia = sn_mat33_mul_v(ia->inv_inertia, r->ang_a);
		r->ib = sn_mat33_mul_v(ib->inv_inertia, r->ang_b);
		r->ma = ia->inv_mass;
		r->mb = ib->inv_mass;
		r->k = row_inverse_mass(r);
		r->c0 = ri == 0 ? s : 0.0;
		r->lo = ri == 0 ? 0.0 : -INFINITY;
		r->hi = INFINITY;
		r->soft = cc->softness;
		r->impulse = finite_or_zero(sp->warm[ri]) * h;
		d->target[i + ri] = 0.0;
		d->compliance[i + ri] = (ri == 0 ? NORMAL_REGULARISATION : FRICTION_REGULARISATION) * r->k;
		d->refine[i + ri] = d->compliance[i + ri];
		d->impulse[i + ri] = r->impulse;
		d->state[i + ri] = ROW_FREE;
		d->fixed[i + ri] = 0.0;
	}
	const row* rn = d->rows + i;
	dp->vn0 = direct_row_rate(rn, d->v0, d->w0);
	if (s > 0.0)
	{
		d->target[i] = -s / h;
	}
	else if (cc->soft)
	{
		soft_direct sd;
		if (soft_direct_for(cc->softness, rn->k, h, def->implicit_alpha, def->implicit_beta, &sd))
		{
			d->compliance[i] = sd.compliance;
			d->refine[i] = 0.0;
			d->target[i] = sd.phi_coef * s + sd.phidot_coef * dp->vn0;
		}
		else
		{
			d->state[i] = ROW_PINNED; // a spring of zero stiffness and damping: no force
		}
	}
	else
	{
		double depth = -s - def->contact.slop;
		dp->push = depth > 0.0 ? fmin(def->erp * depth / h, def->contact.max_push_speed) : 0.0;
	}
	// Starting states: a point of the last step pushes if it pushed then; a new one if it touches (within
	// the slop) or the free motion would close its gap.
	bool closing = s <= def->contact.slop || direct_row_rate(rn, d->vf, d->wf) < d->target[i];
	if (d->state[i] != ROW_PINNED && !(rn->impulse > 0.0) && (persisted || !closing))
	{
		d->state[i] = ROW_AT_LO;
	}
	const double pn = rn->impulse > 0.0 ? rn->impulse : 0.0;
	const double p1 = d->rows[i + 1].impulse, p2 = d->rows[i + 2].impulse;
	const double len = sqrt(p1 * p1 + p2 * p2);
	if (!(cc->friction > 0.0) || d->state[i] != ROW_FREE)
	{
		d->state[i + 1] = d->state[i + 2] = ROW_PINNED;
	}
	else if (len > 0.0 && len >= cc->friction * pn * (1.0 - EDGE))
	{
		d->state[i + 1] = d->state[i + 2] = ROW_SLIDING;
		dp->dir[0] = p1 / len;
		dp->dir[1] = p2 / len;
		d->fixed[i + 1] = cc->friction * pn * dp->dir[0];
		d->fixed[i + 2] = cc->friction * pn * dp->dir[1];
	}
	else if (!(pn > 0.0))
	{
		// A point without impulses that the free motion brings together slides if it slips faster than
		// friction could stop by itself: the normal impulse stops the approach, (t - J_n v_f) / K_n, and
		// mu times it changes the slip by at most that times K_t.
		double u1 = direct_row_rate(d->rows + i + 1, d->vf, d->wf);
		double u2 = direct_row_rate(d->rows + i + 2, d->vf, d->wf);
		double speed = sqrt(u1 * u1 + u2 * u2);
		double approach = d->target[i] - direct_row_rate(rn, d->vf, d->wf);
		double k_t = fmax(d->rows[i + 1].k, d->rows[i + 2].k);
		if (approach > APPROACH && rn->k > 0.0 && speed > cc->friction * approach * k_t / rn->k)
		{
			d->state[i + 1] = d->state[i + 2] = ROW_SLIDING;
			dp->dir[0] = -u1 / speed;
			dp->dir[1] = -u2 / speed;
		}
	}
	d->row_count += CONTACT_ROWS;
	d->point_count += 1;
}

void direct_contacts_build(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	const contact_solver* cs = &world->contact_solver;
	const contact_state* c = &world->contacts;
	d->contact_row_first = d->row_count;
	d->point_count = 0;
	for (int node = d->joint_nodes; node < d->node_count; ++node)
	{
		d->node_row_first[node] = d->row_count;
		d->node_row_count[node] = 0;
	}
	// Constraints follow the pair cache's order (by key) as the contact nodes do: walk the three together.
	int node = d->joint_nodes, pair = 0;
	for (int k = 0; k < cs->count; ++k)
	{
		const contact_constraint* cc = cs->constraints + k;
		if (cc->has_link)
		{
			continue; // a link side, or a body of an articulation's island: the articulations' TGS path
		}
		while (pair < c->pair_count && c->pairs[pair].first + c->pairs[pair].manifold_count <= cc->manifold)
		{
			pair += 1;
		}
		if (pair == c->pair_count)
		{
			break;
		}
		uint64_t key = contact_pair_key(c->pairs[pair].shape_a, c->pairs[pair].shape_b);
		while (node < d->node_count && d->node_key[node] < key)
		{
			node += 1;
		}
		// Every pair of the cache was a pair or a candidate when the graph was made (contact_prepare), and
		// the room for its rows is its node's cap: neither check fails unless that bookkeeping is wrong.
		if (node == d->node_count || d->node_key[node] != key ||
			d->node_row_count[node] + CONTACT_ROWS * cc->point_count > d->caps[node])
		{
			continue;
		}
		if (d->node_row_count[node] == 0)
		{
			d->node_row_first[node] = d->row_count;
		}
		const contact_manifold* cm = c->manifolds + cc->manifold;
		for (int p = 0; p < cc->point_count; ++p)
		{
			add_point(world, cc, cc->points + p, cm->points[p].persisted, h);
		}
		d->node_row_count[node] += CONTACT_ROWS * cc->point_count;
	}
}

// ---- friction ---------------------------------------------------------------------------------------------

static double clamp_at_least_zero(double x)
{
	return x > 0.0 ? x : 0.0;
}

// The slip below which a sliding point does not slip: round-off, and ten times the creep the
// regularisation has left in the last solve (direct.c).
static double slip_tolerance(const direct_state* d, double tol_v)
{
	return 10.0 * (tol_v + d->creep);
}

bool direct_contacts_slide(sn_world* world, double tol_v, double scale_p)
{
	direct_state* d = &world->direct;
	const solver_body* sb = world->solver_bodies;
	double change = 0.0;
	for (int k = 0; k < d->point_count; ++k)
	{
		const int i = d->contact_row_first + CONTACT_ROWS * k;
		if (d->state[i + 1] != ROW_SLIDING)
		{
			continue;
		}
		direct_point* dp = d->points + k;
		double u1 = row_cdot(d->rows + i + 1, sb), u2 = row_cdot(d->rows + i + 2, sb);
		double speed = sqrt(u1 * u1 + u2 * u2);
		// Only a slip against the friction turns it; one along it ends the slide (direct_contacts_update).
		// A point on the edge of its disk that does not slip (others hold the body) keeps its direction.
		if (speed > slip_tolerance(d, tol_v) && u1 * dp->dir[0] + u2 * dp->dir[1] < 0.0)
		{
			dp->dir[0] = -u1 / speed;
			dp->dir[1] = -u2 / speed;
		}
		double bound = dp->friction * clamp_at_least_zero(d->impulse[i]);
		for (int t = 0; t < 2; ++t)
		{
			double f = bound * dp->dir[t];
			change = fmax(change, fabs(f - d->fixed[i + 1 + t]));
			d->fixed[i + 1 + t] = f;
		}
	}
	return change > DIRECT_CONTACT_ROUNDING * scale_p;
}

void direct_contacts_update(sn_world* world, int limit, bool frozen, double tol_v, double scale_p, int* offending)
{
	const double tol_p = DIRECT_CONTACT_ROUNDING * scale_p;
	direct_state* d = &world->direct;
	const solver_body* sb = world->solver_bodies;
	for (int k = 0; k < d->point_count; ++k)
	{
		const int i = d->contact_row_first + CONTACT_ROWS * k;
		direct_point* dp = d->points + k;
		if (!(dp->friction > 0.0))
		{
			continue; // no friction at all
		}
		// Friction follows its normal: none while the normal does not push (a gap, or a separating
		// point); when it starts to, sliding against the slip if the point slips, else sticking. This is
		// part of the normal's change, not one of its own.
		const bool pushing = d->state[i] == ROW_FREE;
		if (pushing == (d->state[i + 1] == ROW_PINNED))
		{
			if (limit > 0 && !pushing)
			{
				d->state[i + 1] = d->state[i + 2] = ROW_PINNED;
			}
			else if (limit > 0)
			{
				double u1 = row_cdot(d->rows + i + 1, sb), u2 = row_cdot(d->rows + i + 2, sb);
				double speed = sqrt(u1 * u1 + u2 * u2);
				bool slips = speed > slip_tolerance(d, tol_v);
				d->state[i + 1] = d->state[i + 2] = slips ? ROW_SLIDING : ROW_FREE;
				dp->dir[0] = slips ? -u1 / speed : 1.0;
				dp->dir[1] = slips ? -u2 / speed : 0.0;
				d->fixed[i + 1] = d->fixed[i + 2] = 0.0; // the normal's impulse comes with the next solve
			}
			continue;
		}
		const uint8_t state = d->state[i + 1];
		if (state == ROW_PINNED || frozen)
		{
			continue;
		}
		double bound = dp->friction * clamp_at_least_zero(d->impulse[i]);
		bool flip;
		double p1 = d->impulse[i + 1], p2 = d->impulse[i + 2];
		double len = sqrt(p1 * p1 + p2 * p2);
		if (state == ROW_FREE)
		{
			flip = len > bound + tol_p;
		}
		else
		{
			// A point that slips, and whose slip the impulse that would stop it by itself keeps inside the
			// disk, sticks; one that does not slip stays on the edge of its disk.
			double u1 = row_cdot(d->rows + i + 1, sb), u2 = row_cdot(d->rows + i + 2, sb);
			double q1 = p1 - u1 / (d->rows[i + 1].k + d->compliance[i + 1]);
			double q2 = p2 - u2 / (d->rows[i + 2].k + d->compliance[i + 2]);
			flip = sqrt(u1 * u1 + u2 * u2) > slip_tolerance(d, tol_v) && sqrt(q1 * q1 + q2 * q2) < bound - tol_p;
		}
		if (!flip)
		{
			continue;
		}
		*offending += 1;
		if (*offending > limit)
		{
			continue;
		}
		if (state == ROW_FREE)
		{
			dp->dir[0] = p1 / len;
			dp->dir[1] = p2 / len;
			d->state[i + 1] = d->state[i + 2] = ROW_SLIDING;
			d->fixed[i + 1] = bound * dp->dir[0];
			d->fixed[i + 2] = bound * dp->dir[1];
		}
		else
		{
			d->state[i + 1] = d->state[i + 2] = ROW_FREE;
		}
	}
}

// ---- restitution, the final projection, impulses out ------------------------------------------------------

int direct_contacts_restitution(sn_world* world, double scale_p, bool* refactor)
{
	const double tol_p = DIRECT_CONTACT_ROUNDING * scale_p;
	direct_state* d = &world->direct;
	const double threshold = world->def.contact.restitution_threshold;
	int changed = 0;
	for (int k = 0; k < d->point_count; ++k)
	{
		direct_point* dp = d->points + k;
		const int i = d->contact_row_first + CONTACT_ROWS * k;
		if (!(dp->restitution > 0.0) || dp->restituted || !(dp->vn0 < -threshold) || d->state[i] != ROW_FREE ||
			!(d->impulse[i] > tol_p))
		{
			continue;
		}
		dp->restituted = true;
		double target = -dp->restitution * dp->vn0;
		double rigid = NORMAL_REGULARISATION * d->rows[i].k;
		bool more = target > d->target[i];
		if (d->compliance[i] != rigid)
		{
			d->compliance[i] = rigid; // a soft contact bounces rigidly, as in PGS and TGS
			d->refine[i] = rigid;
			*refactor = true;
			more = true;
		}
		d->target[i] = fmax(d->target[i], target);
		changed += more ? 1 : 0;
	}
	return changed;
}

int direct_contacts_conflicts(sn_world* world, double creep)
{
	direct_state* d = &world->direct;
	int changed = 0;
	for (int k = 0; k < d->point_count; ++k)
	{
		const int i = d->contact_row_first + CONTACT_ROWS * k;
		if (d->state[i] == ROW_FREE && d->refine[i] > 0.0 && d->refine[i] * d->impulse[i] > creep)
		{
			d->compliance[i] = d->rows[i].k;
			d->refine[i] = 0.0;
			changed += 1;
		}
	}
	return changed;
}

bool direct_contacts_push_targets(sn_world* world, double* b)
{
	direct_state* d = &world->direct;
	bool any = false;
	for (int k = 0; k < d->point_count; ++k)
	{
		const int i = d->contact_row_first + CONTACT_ROWS * k;
		if (d->points[k].push > 0.0 && d->sys[i] >= 0)
		{
			b[d->sys[i]] = d->points[k].push;
			any = true;
		}
	}
	return any;
}

bool direct_contacts_project(sn_world* world)
{
	direct_state* d = &world->direct;
	bool moved = false;
	double largest = 0.0;
	for (int k = 0; k < d->point_count; ++k)
	{
		const int i = d->contact_row_first + CONTACT_ROWS * k;
		double* p = d->impulse + i;
		if (p[0] < 0.0)
		{
			largest = fmax(largest, -p[0]);
			p[0] = 0.0;
			moved = true;
		}
		double bound = d->points[k].friction * p[0];
		double len = sqrt(p[1] * p[1] + p[2] * p[2]);
		if (len > bound)
		{
			double scale = len > 0.0 ? bound / len : 0.0;
			largest = fmax(largest, len - bound);
			p[1] *= scale;
			p[2] *= scale;
			moved = true;
		}
	}
	d->last_projection = largest;
	return moved;
}

void direct_contacts_store(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	const double inv_h = 1.0 / h;
	for (int k = 0; k < d->point_count; ++k)
	{
		contact_solver_point* sp = d->points[k].sp;
		const double* p = d->impulse + d->contact_row_first + CONTACT_ROWS * k;
		for (int ri = 0; ri < CONTACT_ROWS; ++ri)
		{
			sp->step_total[ri] += p[ri];
			sp->warm[ri] = p[ri] * inv_h;
		}
	}
}
