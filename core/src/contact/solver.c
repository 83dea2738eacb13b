// Contact dynamics for PGS and TGS: every manifold point a unilateral normal row and two friction rows,
// solved by sequential impulses (Catto, "Iterative Dynamics with Temporal Coherence", GDC 2005; Box2D
// v3's contact solver) in the same sweeps as the joint rows (solver/pgs_tgs.c) and the articulation rows
// (artic/solve.c). A contact is a row whose force is bounded to 0..inf and friction rows bounded by the
// normal force (Baraff, "Fast contact force computation for nonpenetrating rigid bodies", 1994; ODE's
// contact joint): the same row machinery as the joints (constraint/row.h), with the bounds coupled.
//
// Rows. A point with normal n (from A to B), tangents t1, t2 and the material point x on each side:
//   normal    Cdot_n = n . (v_B(x) - v_A(x)),  C = s (the separation, < 0 overlapping),  P_n >= 0
//   friction  Cdot_i = t_i . (v_B(x) - v_A(x)),  |(P_1, P_2)| <= mu P_n
// A side's point velocity is v + w x r for a body (r from its centre of mass) and J v over the active
// slots for an articulation link (artic/solve.c): J_s = S_s . j with j = (r_O x d, d) the spatial impulse
// of a unit impulse along d at x (r_O from the solve's point O), and a unit impulse changes the slots'
// speeds by W J^T, W = M^-1 over the active slots. K = J M^-1 J^T is the sum over the two sides: for a
// body 1/m + (r x d) . I^-1 (r x d), for a link J . W J^T. Two links of one articulation share their slots:
// their rows are the one Jacobian J_B - J_A.
//
// Impulses per window (PGS: the solve is one window; TGS: n = position_iterations windows of rho):
//   speculative (s > 0)   dP_n = -(Cdot_n + s / rho) / K_n          (stops the gap closing within the window)
//   rigid                 dP_n = -Cdot_n / K_n,  P_n >= 0
//   soft                  dP_n = -m_soft (Cdot_n + bias_rate s) - impulse_scale P_n   (constraint/soft.h)
//   friction              dP_i = -Cdot_i / K_i, then (P_1, P_2) projected onto the disk of radius mu P_n
// The disk is the true Coulomb cone (not a pyramid of two boxes, which lets friction reach sqrt(2) mu P_n
// along a diagonal): one square root per point and sweep. Friction is solved after the normals of the
// manifold, with the bound from this window's normal impulse.
//
// Penetration (rigid contacts) is removed by a split impulse (Catto 2006; ODE's and Bullet's split
// impulse), never by a bias in the real velocity, so a correction adds no kinetic energy: a pseudo impulse
// Q >= 0 drives the pseudo speed n . (v_p,B - v_p,A) to beta (-s - slop), at most max_push_speed, where
// beta removes the fraction erp of the error per step (artic_bias_rate: (1 - (1 - erp)^(1/n)) / rho).
// Penetration within the slop is left alone, so resting contacts touch from step to step. The pseudo
// speeds move the positions of this window only.
//
// Soft contacts: the manifold's softness (the two shapes' mixed, contact/solver.c) is one spring for
// the whole manifold: a stiffness (or compliance) is shared by its points (each point k / n), so a box on
// four points and a sphere on one both sink by F c under a load F; a frequency form is per point (it scales
// with each point's effective mass). No slop: the spring rests where k s = -F exactly.
//
// Separations. The manifold is measured once per step, at the start poses (contact/update.c). A point's
// separation later in the step follows the material points it joined: with x0 the point at the start of
// the step, s = s0 + n . ((x_B - x0) - (x_A - x0)), each side's point x carried rigidly by its body (from
// its pose now) or, for a link within a solve, linearised by its slots' displacement: n . x_link = offset
// at the solve's start + J_n dx. TGS recomputes it at every window (the issue's "separations recomputed
// from the accumulated displacement").
//
// Warm starts: each point keeps the force its last solve ended with; each window starts from force times
// its length (times the world's warm_start), applied at the window's start, as the joint rows do. The
// manifold's points carry the step's impulses to the next step by feature id (contact/update.c).
//
// The kick's hold (TGS, n > 1 windows). A body gains its free motion window by window (g rho each), so a
// body resting on the ground meets each window with the normal impulse m g rho and the friction budget
// mu m g rho. An articulation takes its whole step's free motion qd* - qd = h qdd before the first window
// (artic/solve.c, step 1: spread over the windows with accelerations frozen at the start, it would gain
// energy). Its contacts then see the whole step's load in window 1 and none in the later ones, whose
// normal impulses, and with them the friction bounds, fall to about zero: whatever window 1's single
// sweep left of a sideways speed slides freely for the rest of the step (a 2 kg slab on the ground under
// a swinging 1 kg arm walked 1 mm in 6 s at 8 windows; in PGS, not at all). So, as the articulation's
// joint rows do (artic/solve.c, step 3), the contacts hold the kick: before the first window, impulses
// P_hold on the rigid contacts between links and the ground (or links) are solved over the whole solve,
//   normal    J v >= 0, or >= -s / h for a gap s > 0 at the solve's start (closed by its end),  P_n >= 0
//   friction  J v = 0 inside the disk mu P_n
// and applied at once; each window then owns P_hold / n as impulse already applied, so its accumulator
// starts there (bounds as for any window), and the warm start applies only the part of last solve's force
// that the hold does not explain, F_warm - P_hold / h. Within the windows the contacts then meet what a
// body's would: their share of the load and its friction. Unlike the joint rows' hold (an exact solve of
// this step's kick, with no history), P_hold is CONTACT_HOLD_SWEEPS Gauss-Seidel sweeps started from last
// solve's forces times h (and warm_start): it converges over the steps as warm starts do, and what a
// sweep leaves wrong (after a bounce or a lift-off) the windows take back at 1/n of it each. Not held:
// soft contacts (springs, as the joint rows' windows leave the drives), and contacts with a maximal body,
// whose solver slots exist only from the first window on; such a contact still meets the link's whole
// kick in window 1 (the README's known limitations).
//
// Restitution (Box2D's): after the velocity sweeps, a point that approached faster than the threshold at
// the start of the solve and pushed in it is given the normal speed -e times that approach speed.
#include "contact/solver.h"

#include "artic/artic.h"
#include "body.h"
#include "contact/contact.h"
#include "island.h"
#include "constraint/link_row.h"
#include "solver/pgs_tgs.h"
#include "math/mathx.h"
#include "world.h"

#include <math.h>
#include <string.h>

// ---- memory -----------------------------------------------------------------------------------------------

bool contact_solver_reserve(sn_world* world, int manifolds, int64_t jac_doubles)
{
	contact_solver* cs = &world->contact_solver;
	void* p = cs->constraints;
	if (!memory_reserve(&world->memory, &p, &cs->capacity, manifolds, sizeof(contact_constraint)))
	{
		return false;
	}
	cs->constraints = p;
	p = cs->points;
	if (manifolds > INT32_MAX / COLLIDE_MANIFOLD_POINTS ||
		!memory_reserve(&world->memory, &p, &cs->point_capacity, manifolds * COLLIDE_MANIFOLD_POINTS,
						sizeof(contact_solver_point)))
	{
		return false;
	}
	cs->points = p;
	if (jac_doubles > cs->jac_capacity)
	{
		if (jac_doubles > (int64_t)(SIZE_MAX / sizeof(double) / 2))
		{
			return false;
		}
		int64_t grown = jac_doubles + jac_doubles / 2;
		double* q = memory_alloc(&world->memory, (size_t)grown * sizeof(double));
		if (q == NULL)
		{
			return false;
		}
		memory_free(&world->memory, cs->jac, (size_t)cs->jac_capacity * sizeof(double));
		cs->jac = q;
		cs->jac_capacity = grown;
	}
	return true;
}

void contact_solver_release(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	memory_free(&world->memory, cs->constraints, (size_t)cs->capacity * sizeof(contact_constraint));
	memory_free(&world->memory, cs->points, (size_t)cs->point_capacity * sizeof(contact_solver_point));
	memory_free(&world->memory, cs->jac, (size_t)cs->jac_capacity * sizeof(double));
	memset(cs, 0, sizeof(*cs));
}

static int side_slot_capacity(const sn_world* world, int32_t body_slot)
{
	if (body_slot < 0)
	{
		return 0;
	}
	const body* b = world->bodies + body_slot;
	if (b->type != SN_BODY_LINK)
	{
		return 0;
	}
	return world->artics->items[b->artic].rows.k_capacity;
}

int64_t contact_solver_link_demand(const sn_world* world, int32_t shape_a, int32_t shape_b, int manifolds)
{
	const shape* sa = world->contacts.shapes + shape_a;
	const shape* sb = world->contacts.shapes + shape_b;
	int64_t slots = (int64_t)side_slot_capacity(world, sa->body) + side_slot_capacity(world, sb->body);
	return slots * 2 * CONTACT_ROWS * COLLIDE_MANIFOLD_POINTS * manifolds;
}

// ---- building ---------------------------------------------------------------------------------------------

static double mix(sn_mix_rule rule, double a, double b)
{
	switch (rule)
	{
		case SN_MIX_MIN:
			return fmin(a, b);
		case SN_MIX_MAX:
			return fmax(a, b);
		case SN_MIX_AVERAGE:
			return 0.5 * (a + b);
		case SN_MIX_MULTIPLY:
			return a * b;
		case SN_MIX_GEOMETRIC_MEAN:
		default:
			return sqrt(a * b);
	}
}

// Two shapes' softness as one: a rigid one yields to the other; two springs given by stiffness or
// compliance act in series (k = k_a k_b / (k_a + k_b), and their dampers likewise); a frequency form,
// which depends on the contact's effective mass, wins over the others (the lower frequency of two).
static sn_soft mix_soft(sn_soft a, sn_soft b)
{
	if (soft_is_hard(a))
	{
		return b;
	}
	if (soft_is_hard(b))
	{
		return a;
	}
	if (a.kind == SN_SOFT_FREQUENCY || b.kind == SN_SOFT_FREQUENCY)
	{
		if (a.kind != SN_SOFT_FREQUENCY)
		{
			return b;
		}
		if (b.kind != SN_SOFT_FREQUENCY)
		{
			return a;
		}
		return a.frequency <= b.frequency ? a : b;
	}
	double ka, ba, kb, bb;
	soft_spring_constants(a, 1.0, &ka, &ba); // K is not used by these two forms
	soft_spring_constants(b, 1.0, &kb, &bb);
	double k = (ka + kb) > 0.0 ? ka * kb / (ka + kb) : 0.0;
	double d = (ba + bb) > 0.0 ? ba * bb / (ba + bb) : 0.0;
	return sn_soft_stiffness(k, d);
}

// A manifold's softness for one of its n points: a stiffness or compliance shared by the points.
static sn_soft point_soft(sn_soft s, int n)
{
	switch (s.kind)
	{
		case SN_SOFT_STIFFNESS:
			s.stiffness /= n;
			s.damping /= n;
			break;
		case SN_SOFT_COMPLIANCE:
			s.compliance *= n;
			break;
		default:
			break;
	}
	return s;
}

static contact_side make_side(const sn_world* world, int32_t body_slot)
{
	contact_side s;
	memset(&s, 0, sizeof(s));
	s.body = body_slot;
	s.artic = -1;
	s.link = -1;
	s.kind = SIDE_GROUND;
	if (body_slot < 0)
	{
		return s;
	}
	const body* b = world->bodies + body_slot;
	switch (b->type)
	{
		case SN_BODY_DYNAMIC:
		case SN_BODY_KINEMATIC:
			s.kind = SIDE_BODY;
			break;
		case SN_BODY_LINK:
			s.kind = SIDE_LINK;
			s.artic = b->artic;
			s.link = b->link;
			break;
		default:
			break;
	}
	return s;
}

// Where a side's material point is now (world): a body's or link's pose times the local point.
static sn_vec3 side_point_now(const sn_world* world, const contact_side* s, sn_vec3 local)
{
	if (s->kind == SIDE_GROUND)
	{
		return local; // not used: the ground does not move
	}
	const body* b = world->bodies + s->body;
	if (s->kind == SIDE_LINK)
	{
		const artic* a = world->artics->items + s->artic;
		return sn_transform_point(artic_link_pose(a, s->link), local);
	}
	return sn_add(b->com, sn_rotate(b->q, sn_sub(local, b->local_com)));
}

static sn_vec3 side_local_point(const sn_world* world, const contact_side* s, sn_vec3 x)
{
	if (s->kind == SIDE_GROUND)
	{
		return x;
	}
	const body* b = world->bodies + s->body;
	if (s->kind == SIDE_LINK)
	{
		const artic* a = world->artics->items + s->artic;
		return sn_inv_transform_point(artic_link_pose(a, s->link), x);
	}
	return sn_add(b->local_com, sn_inv_rotate(b->q, sn_sub(x, b->com)));
}

void contact_solver_build(sn_world* world, double dt)
{
	contact_solver* cs = &world->contact_solver;
	const contact_state* c = &world->contacts;
	const sn_contact_settings* set = &world->def.contact;
	cs->count = 0;
	cs->point_count = 0;
	cs->link_constraints = 0;
	const double inv_dt = 1.0 / dt;
	for (int i = 0; i < c->pair_count; ++i)
	{
		const contact_pair* p = c->pairs + i;
		if (p->manifold_count == 0 || (p->flags & PAIR_SENSOR))
		{
			continue;
		}
		const shape* sa = c->shapes + p->shape_a;
		const shape* sb = c->shapes + p->shape_b;
		contact_side side_a = make_side(world, sa->body);
		contact_side side_b = make_side(world, sb->body);
		if (!island_body_moves(world, sa->body) && !island_body_moves(world, sb->body))
		{
			continue; // nothing that moves under forces (or both sides asleep)
		}
		double friction = mix(set->friction_mix, sa->material.friction, sb->material.friction);
		double restitution = mix(set->restitution_mix, sa->material.restitution, sb->material.restitution);
		sn_soft softness = mix_soft(sa->material.soft, sb->material.soft);
		for (int m = 0; m < p->manifold_count; ++m)
		{
			const contact_manifold* cm = c->manifolds + p->first + m;
			contact_constraint* cc = cs->constraints + cs->count++;
			cc->a = side_a;
			cc->b = side_b;
			cc->manifold = p->first + m;
			cc->normal = cm->normal;
			vec3_plane_basis(cm->normal, cc->tangent, cc->tangent + 1);
			cc->friction = friction;
			cc->restitution = restitution;
			cc->soft = !soft_is_hard(softness);
			cc->softness = cc->soft ? point_soft(softness, cm->point_count) : softness;
			cc->same_artic = side_a.kind == SIDE_LINK && side_b.kind == SIDE_LINK && side_a.artic == side_b.artic;
			cc->point_count = cm->point_count;
			cc->block_mask[0] = cc->block_mask[1] = 0;
			cc->points = cs->points + cs->point_count;
			cs->point_count += cm->point_count;
			// Solved by the articulations' TGS path in XPBD and DIRECT worlds: a link side, or a body of an
			// articulation's island (island_mark_articulated).
			cc->has_link = side_a.kind == SIDE_LINK || side_b.kind == SIDE_LINK ||
				(sa->body >= 0 && world->bodies[sa->body].articulated) ||
				(sb->body >= 0 && world->bodies[sb->body].articulated);
			cs->link_constraints += cc->has_link ? 1 : 0;
			for (int k = 0; k < cm->point_count; ++k)
			{
				const contact_point* cp = cm->points + k;
				contact_solver_point* sp = cc->points + k;
				memset(sp, 0, sizeof(*sp));
				sp->x0 = cp->position;
				sp->local_a = side_local_point(world, &cc->a, cp->position);
				sp->local_b = side_local_point(world, &cc->b, cp->position);
				sp->s0 = cp->separation;
				// Last step's impulses as forces (the step length may have changed since).
				sp->warm[0] = cp->normal_impulse * inv_dt;
				sp->warm[1] = cp->tangent_impulse[0] * inv_dt;
				sp->warm[2] = cp->tangent_impulse[1] * inv_dt;
				sp->jac_a = sp->jac_b = -1;
			}
		}
	}
}

void contact_solver_mark_links(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	if (cs->link_constraints == 0)
	{
		return;
	}
	for (int i = 0; i < cs->count; ++i)
	{
		const contact_constraint* cc = cs->constraints + i;
		if (cc->a.kind == SIDE_LINK)
		{
			artic_mark_contact_link(world->artics->items + cc->a.artic, cc->a.link);
		}
		if (cc->b.kind == SIDE_LINK)
		{
			artic_mark_contact_link(world->artics->items + cc->b.artic, cc->b.link);
		}
	}
}

void contact_solver_store(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	contact_state* c = &world->contacts;
	for (int i = 0; i < cs->count; ++i)
	{
		const contact_constraint* cc = cs->constraints + i;
		contact_manifold* cm = c->manifolds + cc->manifold;
		for (int k = 0; k < cc->point_count; ++k)
		{
			const contact_solver_point* sp = cc->points + k;
			cm->points[k].normal_impulse = sp->step_total[0];
			cm->points[k].tangent_impulse[0] = sp->step_total[1];
			cm->points[k].tangent_impulse[1] = sp->step_total[2];
		}
	}
}

// ---- sides ------------------------------------------------------------------------------------------------

// The directions of a point's rows.
static inline sn_vec3 row_dir(const contact_constraint* cc, int ri)
{
	return ri == 0 ? cc->normal : cc->tangent[ri - 1];
}

// A link side's row vectors: J then W J^T, each rows.k long, for each of the three rows.
static inline const double* link_jac(const sn_world* world, int64_t offset, int k, int ri)
{
	return world->contact_solver.jac + offset + (int64_t)ri * 2 * k;
}

static inline const artic_rows* side_rows(const sn_world* world, const contact_side* s)
{
	return &world->artics->items[s->artic].rows;
}

// Whether side A takes part in the rows (two links of one articulation are carried by side B's J_B - J_A).
static inline bool side_a_active(const contact_constraint* cc)
{
	return cc->a.kind != SIDE_GROUND && !cc->same_artic;
}

// The row's speed on one side: d . (v + w x r) for a body (r, ir: the anchor and I^-1 (r x d) are not
// needed for the speed), J v for a link. pseudo: the split impulse's pseudo velocities.
static inline double side_speed(const sn_world* world, const contact_side* s, sn_vec3 r, int64_t jac, sn_vec3 d, int ri,
								bool pseudo)
{
	if (s->kind == SIDE_BODY)
	{
		const solver_body* b = world->solver_bodies + s->solver;
		sn_vec3 v = pseudo ? b->vp : b->v;
		sn_vec3 w = pseudo ? b->wp : b->w;
		return sn_dot(d, sn_add(v, sn_cross(w, r)));
	}
	if (s->kind == SIDE_LINK && jac >= 0)
	{
		const artic_rows* rs = side_rows(world, s);
		const double* j = link_jac(world, jac, rs->k, ri);
		const double* v = pseudo ? rs->vp : rs->v;
		double x = 0.0;
		for (int i = 0; i < rs->k; ++i)
		{
			x += j[i] * v[i];
		}
		return x;
	}
	return 0.0;
}

// Apply the impulse p d at the side's point (ir: I^-1 (r x d) for a body).
static inline void side_apply(sn_world* world, const contact_side* s, sn_vec3 ir, int64_t jac, sn_vec3 d, int ri,
							  double p, bool pseudo)
{
	if (s->kind == SIDE_BODY)
	{
		solver_body* b = world->solver_bodies + s->solver;
		double m = world->solver_infos[s->solver].inv_mass;
		if (pseudo)
		{
			b->vp = sn_mul_add(b->vp, m * p, d);
			b->wp = sn_mul_add(b->wp, p, ir);
		}
		else
		{
			b->v = sn_mul_add(b->v, m * p, d);
			b->w = sn_mul_add(b->w, p, ir);
		}
		return;
	}
	if (s->kind == SIDE_LINK && jac >= 0)
	{
		artic_rows* rs = &world->artics->items[s->artic].rows;
		const int k = rs->k;
		const double* j = link_jac(world, jac, k, ri);
		const double* wj = j + k;
		double* v = pseudo ? rs->vp : rs->v;
		double* imp = pseudo ? rs->pp : rs->p;
		for (int i = 0; i < k; ++i)
		{
			v[i] += p * wj[i];
			imp[i] += p * j[i];
		}
	}
}

// The relative speed of a row: side B's minus side A's.
static inline double point_speed(const sn_world* world, const contact_constraint* cc, const contact_solver_point* sp,
								 int ri, bool pseudo)
{
	sn_vec3 d = row_dir(cc, ri);
	double v = side_speed(world, &cc->b, sp->rb, sp->jac_b, d, ri, pseudo);
	if (side_a_active(cc))
	{
		v -= side_speed(world, &cc->a, sp->ra, sp->jac_a, d, ri, pseudo);
	}
	return v;
}

static inline void point_apply(sn_world* world, const contact_constraint* cc, const contact_solver_point* sp, int ri,
							   double p, bool pseudo)
{
	sn_vec3 d = row_dir(cc, ri);
	side_apply(world, &cc->b, sp->ib[ri], sp->jac_b, d, ri, p, pseudo);
	if (side_a_active(cc))
	{
		side_apply(world, &cc->a, sp->ia[ri], sp->jac_a, d, ri, -p, pseudo);
	}
}

// ---- a solve --------------------------------------------------------------------------------------------

// A side's displacement along n since the start of the step: n . (x now - x0).
static double side_offset_now(const sn_world* world, const contact_side* s, sn_vec3 local, sn_vec3 x0, sn_vec3 n)
{
	if (s->kind == SIDE_GROUND)
	{
		return 0.0;
	}
	return sn_dot(n, sn_sub(side_point_now(world, s, local), x0));
}

// A side's point velocity now, from the body's or the articulation's state (not the solver's).
static sn_vec3 side_velocity_now(const sn_world* world, const contact_side* s, sn_vec3 local)
{
	if (s->kind == SIDE_GROUND)
	{
		return sn_v3(0, 0, 0);
	}
	body_motion m = body_motion_of(world, s->body);
	sn_vec3 x = sn_transform_point(m.pose, local);
	return sn_add(m.v, sn_cross(m.w, sn_sub(x, m.com)));
}

// The J of a link side's three rows at its point, and W J^T, into the scratch at *used.
static int64_t link_rows(sn_world* world, const contact_constraint* cc, const contact_side* s, sn_vec3 local)
{
	contact_solver* cs = &world->contact_solver;
	artic* a = world->artics->items + s->artic;
	const int k = a->rows.k;
	if (k == 0)
	{
		return -1; // nothing of it moves (the base of a fixed articulation)
	}
	int64_t offset = cs->jac_used;
	cs->jac_used += (int64_t)2 * CONTACT_ROWS * k;
	sn_vec3 r = sn_sub(side_point_now(world, s, local), artic_solve_origin(a));
	for (int ri = 0; ri < CONTACT_ROWS; ++ri)
	{
		sn_vec3 d = row_dir(cc, ri);
		double* j = cs->jac + offset + (int64_t)ri * 2 * k;
		artic_contact_jacobian(a, s->link, sv6_make(sn_cross(r, d), d), j);
	}
	return offset;
}

// Two links of one articulation: side B's rows become J_B - J_A (A's Jacobian is dropped).
static void link_rows_relative(sn_world* world, const contact_constraint* cc, int64_t jac_b, sn_vec3 local_a)
{
	artic* a = world->artics->items + cc->a.artic;
	const int k = a->rows.k;
	double* jb = world->contact_solver.jac + jac_b;
	sn_vec3 r = sn_sub(side_point_now(world, &cc->a, local_a), artic_solve_origin(a));
	for (int ri = 0; ri < CONTACT_ROWS; ++ri)
	{
		sn_vec3 d = row_dir(cc, ri);
		double* j = jb + (int64_t)ri * 2 * k;
		double* tmp = j + k; // W J^T's room, filled below
		artic_contact_jacobian(a, cc->a.link, sv6_make(sn_cross(r, d), d), tmp);
		for (int i = 0; i < k; ++i)
		{
			j[i] -= tmp[i];
		}
	}
}

static void link_k(sn_world* world, int64_t offset, const artic* a, double* k_rows)
{
	const int k = a->rows.k;
	double* base = world->contact_solver.jac + offset;
	for (int ri = 0; ri < CONTACT_ROWS; ++ri)
	{
		double* j = base + (int64_t)ri * 2 * k;
		double* wj = j + k;
		artic_contact_response(a, j, wj);
		double x = 0.0;
		for (int i = 0; i < k; ++i)
		{
			x += j[i] * wj[i];
		}
		k_rows[ri] += x;
	}
}

// A body side's inverse mass and world inverse inertia for the solve (kinematic bodies have none).
static void body_side_inertia(const sn_world* world, const contact_side* s, double* inv_mass, sn_mat33* inv_inertia)
{
	const body* b = world->bodies + s->body;
	if (b->type == SN_BODY_DYNAMIC)
	{
		*inv_mass = b->inv_mass;
		*inv_inertia = body_inv_inertia_world(b);
	}
	else
	{
		*inv_mass = 0.0;
		*inv_inertia = sn_mat33_zero();
	}
}

// A body side's arms I^-1 (r x d) for each row, and its share of each row's K.
static void body_side_rows(const contact_constraint* cc, sn_vec3 r, double inv_mass, const sn_mat33* inv_inertia,
						   sn_vec3* arms, double* k_rows)
{
	for (int ri = 0; ri < CONTACT_ROWS; ++ri)
	{
		sn_vec3 d = row_dir(cc, ri);
		sn_vec3 rd = sn_cross(r, d);
		arms[ri] = sn_mat33_mul_v(*inv_inertia, rd);
		k_rows[ri] += inv_mass + sn_dot(rd, arms[ri]);
	}
}

static void block_prepare(const sn_world* world, contact_constraint* cc);

// Gauss-Seidel sweeps of the kick's hold (contact_solve_hold).
enum
{
	CONTACT_HOLD_SWEEPS = 1
};

void contact_solve_begin(sn_world* world, double h, int windows)
{
	contact_solver* cs = &world->contact_solver;
	cs->h = h;
	cs->windows = windows;
	cs->hw = h / windows;
	cs->bias_rate = artic_bias_rate(world->def.erp, windows, cs->hw);
	cs->jac_used = 0;
	// The bodies' motion over the solve's windows starts here (solver/pgs_tgs.c adds to it).
	for (int i = 0; i < world->body_high; ++i)
	{
		world->bodies[i].solve_dp = sn_v3(0, 0, 0);
		world->bodies[i].solve_dtheta = sn_v3(0, 0, 0);
	}
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (cs->links_only && !cc->has_link)
		{
			continue;
		}
		const sn_vec3 n = cc->normal;
		sn_mat33 inertia_a = sn_mat33_zero(), inertia_b = sn_mat33_zero();
		cc->inv_mass_a = cc->inv_mass_b = 0.0;
		cc->holds = windows > 1 && !cc->soft && cc->a.kind != SIDE_BODY && cc->b.kind != SIDE_BODY &&
			(cc->a.kind == SIDE_LINK || cc->b.kind == SIDE_LINK);
		if (cc->a.kind == SIDE_BODY)
		{
			body_side_inertia(world, &cc->a, &cc->inv_mass_a, &inertia_a);
		}
		if (cc->b.kind == SIDE_BODY)
		{
			body_side_inertia(world, &cc->b, &cc->inv_mass_b, &inertia_b);
		}
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			double k_rows[CONTACT_ROWS] = { 0.0, 0.0, 0.0 };
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				sp->solve_total[ri] = 0.0;
				sp->hold[ri] = 0.0;
			}
			sp->offset_a = side_offset_now(world, &cc->a, sp->local_a, sp->x0, n);
			sp->offset_b = side_offset_now(world, &cc->b, sp->local_b, sp->x0, n);
			sn_vec3 va = side_velocity_now(world, &cc->a, sp->local_a);
			sn_vec3 vb = side_velocity_now(world, &cc->b, sp->local_b);
			sp->vn0 = sn_dot(n, sn_sub(vb, va));
			sp->jac_a = sp->jac_b = -1;
			// Body sides: the lever from the centre of mass to the point, fixed in the world for the solve
			// (as Box2D v3 keeps its anchors: a rolling sphere's contact stays at its bottom instead of turning
			// away with the material point), and the rows' arms at the solve's inertia.
			if (cc->a.kind == SIDE_BODY)
			{
				sp->ra = sn_sub(side_point_now(world, &cc->a, sp->local_a), world->bodies[cc->a.body].com);
				sp->rn_a = sn_cross(sp->ra, n);
				body_side_rows(cc, sp->ra, cc->inv_mass_a, &inertia_a, sp->ia, k_rows);
			}
			if (cc->b.kind == SIDE_BODY)
			{
				sp->rb = sn_sub(side_point_now(world, &cc->b, sp->local_b), world->bodies[cc->b.body].com);
				sp->rn_b = sn_cross(sp->rb, n);
				body_side_rows(cc, sp->rb, cc->inv_mass_b, &inertia_b, sp->ib, k_rows);
			}
			// Link sides: J and W J^T over their articulations' slots.
			if (cc->same_artic)
			{
				sp->jac_b = link_rows(world, cc, &cc->b, sp->local_b);
				if (sp->jac_b >= 0)
				{
					link_rows_relative(world, cc, sp->jac_b, sp->local_a);
					link_k(world, sp->jac_b, world->artics->items + cc->b.artic, k_rows);
				}
			}
			else
			{
				if (cc->a.kind == SIDE_LINK)
				{
					sp->jac_a = link_rows(world, cc, &cc->a, sp->local_a);
					if (sp->jac_a >= 0)
					{
						link_k(world, sp->jac_a, world->artics->items + cc->a.artic, k_rows);
					}
				}
				if (cc->b.kind == SIDE_LINK)
				{
					sp->jac_b = link_rows(world, cc, &cc->b, sp->local_b);
					if (sp->jac_b >= 0)
					{
						link_k(world, sp->jac_b, world->artics->items + cc->b.artic, k_rows);
					}
				}
			}
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				sp->k[ri] = k_rows[ri];
				sp->mass[ri] = k_rows[ri] > 0.0 ? 1.0 / k_rows[ri] : 0.0;
			}
			memset(&sp->coef, 0, sizeof(sp->coef));
			if (cc->soft && !soft_coefficients_for(cc->softness, sp->k[0], cs->hw, 0.0, &sp->coef))
			{
				memset(&sp->coef, 0, sizeof(sp->coef)); // a spring of zero stiffness and damping: no force
			}
		}
		if (cc->point_count > 1 && !cc->soft)
		{
			block_prepare(world, cc);
		}
	}
}

// A body's displacement along n at its lever since the start of the solve, linearised in the rotation
// (the TGS rows' C + J dx): n . (dcom + theta x r) = n . dcom + theta . (r x n), with theta the rotation
// vector summed over the windows. The material point itself would leave the surface of a rolling sphere by
// r (1 - cos theta) and let it sink by that much per step.
static inline double body_displacement(const body* b, sn_vec3 rn, sn_vec3 n)
{
	return sn_dot(n, b->solve_dp) + sn_dot(b->solve_dtheta, rn);
}

// n . J dx of a link side: its displacement along the normal since the start of the solve (TGS windows).
static double link_displacement(const sn_world* world, const contact_side* s, int64_t jac)
{
	if (jac < 0)
	{
		return 0.0;
	}
	const artic_rows* rs = side_rows(world, s);
	const double* j = link_jac(world, jac, rs->k, 0);
	double x = 0.0;
	for (int i = 0; i < rs->k; ++i)
	{
		x += j[i] * rs->dx[i];
	}
	return x;
}

// The disk |(f1, f2)| <= bound.
static void cone_clamp(double* f1, double* f2, double bound)
{
	double len = sqrt(*f1 * *f1 + *f2 * *f2);
	if (len > bound)
	{
		double s = len > 0.0 ? bound / len : 0.0;
		*f1 *= s;
		*f2 *= s;
	}
}


void contact_window_begin(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	const double hw = cs->hw, inv_h = 1.0 / cs->h, inv_windows = 1.0 / cs->windows;
	const double factor = world->def.warm_start;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (cs->links_only && !cc->has_link)
		{
			continue;
		}
		const sn_vec3 n = cc->normal;
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			double off_a = sp->offset_a, off_b = sp->offset_b;
			if (cc->a.kind == SIDE_BODY)
			{
				cc->a.solver = world->bodies[cc->a.body].solver_index;
				off_a += body_displacement(world->bodies + cc->a.body, sp->rn_a, n);
			}
			else if (cc->a.kind == SIDE_LINK && !cc->same_artic)
			{
				off_a += link_displacement(world, &cc->a, sp->jac_a);
			}
			if (cc->b.kind == SIDE_BODY)
			{
				cc->b.solver = world->bodies[cc->b.body].solver_index;
				off_b += body_displacement(world->bodies + cc->b.body, sp->rn_b, n);
			}
			else if (cc->b.kind == SIDE_LINK)
			{
				off_b += link_displacement(world, &cc->b, sp->jac_b);
			}
			sp->s = sp->s0 + off_b - off_a;
			// The window starts from its share of the hold (already applied) plus the warm start: each row's
			// last force less what the hold explains, over this window; the normal pushing, the friction
			// inside its cone. Only what is not the hold's is applied here.
			double share[CONTACT_ROWS], f[CONTACT_ROWS];
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				share[ri] = sp->hold[ri] * inv_windows;
				f[ri] = sp->mass[ri] > 0.0 ? (sp->warm[ri] - sp->hold[ri] * inv_h) * hw * factor : 0.0;
				f[ri] = f[ri] == f[ri] ? f[ri] : 0.0; // a NaN warm start (a diverged world) applies nothing
				f[ri] += share[ri];
			}
			f[0] = f[0] > 0.0 ? f[0] : 0.0;
			cone_clamp(f + 1, f + 2, cc->friction * f[0]);
			sp->push = 0.0;
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				sp->acc[ri] = f[ri];
				sp->counted[ri] = 0.0;
				if (f[ri] != share[ri])
				{
					point_apply(world, cc, sp, ri, f[ri] - share[ri], false);
				}
			}
		}
		if (cc->point_count > 1 && !cc->soft)
		{
			block_prepare(world, cc);
		}
	}
}

// J_i M^-1 J_j^T between the normal rows of two points of one manifold (the body sides' arms and the
// link sides' W J^T must be current).
static double normal_coupling(const sn_world* world, const contact_constraint* cc, const contact_solver_point* pi,
							  const contact_solver_point* pj)
{
	const sn_vec3 n = cc->normal;
	double k = 0.0;
	const contact_side* sides[2] = { &cc->a, &cc->b };
	for (int side = 0; side < 2; ++side)
	{
		const contact_side* s = sides[side];
		if (side == 0 && !side_a_active(cc))
		{
			continue;
		}
		if (s->kind == SIDE_BODY)
		{
			sn_vec3 ri = side == 0 ? pi->ra : pi->rb;
			sn_vec3 arm_j = side == 0 ? pj->ia[0] : pj->ib[0];
			k += (side == 0 ? cc->inv_mass_a : cc->inv_mass_b) + sn_dot(sn_cross(ri, n), arm_j);
		}
		else if (s->kind == SIDE_LINK)
		{
			int64_t ji = side == 0 ? pi->jac_a : pi->jac_b;
			int64_t jj = side == 0 ? pj->jac_a : pj->jac_b;
			if (ji < 0 || jj < 0)
			{
				continue;
			}
			const int kk = side_rows(world, s)->k;
			const double* a = link_jac(world, ji, kk, 0);
			const double* wj = link_jac(world, jj, kk, 0) + kk;
			for (int t = 0; t < kk; ++t)
			{
				k += a[t] * wj[t];
			}
		}
	}
	return k;
}

static bool block_factor(int n, const double (*k)[COLLIDE_MANIFOLD_POINTS], double eps, uint8_t mask, int* idx,
						 int* m_out, double (*l)[COLLIDE_MANIFOLD_POINTS]);

static void block_prepare(const sn_world* world, contact_constraint* cc)
{
	const int n = cc->point_count;
	double scale = 0.0;
	for (int i = 0; i < n; ++i)
	{
		cc->block_k[i][i] = cc->points[i].k[0];
		scale = fmax(scale, cc->block_k[i][i]);
		for (int j = 0; j < i; ++j)
		{
			double k = normal_coupling(world, cc, cc->points + i, cc->points + j);
			cc->block_k[i][j] = k;
			cc->block_k[j][i] = k;
		}
	}
	int idx[COLLIDE_MANIFOLD_POINTS], m;
	const uint8_t full = (uint8_t)((1 << n) - 1);
	cc->block_factored = scale > 0.0 &&
		block_factor(n, (const double(*)[COLLIDE_MANIFOLD_POINTS])cc->block_k, 1e-9 * scale, full, idx, &m,
					 cc->block_l);
	if (cc->block_mask[0] == 0 || cc->block_mask[0] > full)
	{
		cc->block_mask[0] = full;
	}
	if (cc->block_mask[1] == 0 || cc->block_mask[1] > full)
	{
		cc->block_mask[1] = full;
	}
}

static double clamp_at_least_zero(double* acc, double delta)
{
	double p = *acc + delta;
	p = p > 0.0 ? p : 0.0;
	delta = p - *acc;
	*acc = p;
	return delta;
}

// The normal rows of a manifold solved together: find impulses x >= 0 with w = K x + b >= 0 and x_i w_i =
// 0 (the manifold's linear complementarity problem, as Box2D v2's two-point block solver does for two),
// by trying sets of pushing points: first the set that solved the manifold last time (a resting manifold
// keeps its set), then every set from all points down (at most 15 small solves for four points; the first,
// all points pushing, holds for a body resting on a face). Solving the points one after another instead
// lets the first point of every sweep carry more than its share, which rocks a stack of boxes. Four
// points of one face give a K of rank three (a face has three rigid motions along n), so K gets a
// relative 1e-9 on its diagonal: the least-norm impulses among the exact ones, shared evenly.

// Sets of points by decreasing size, for two, three and four points.
static const uint8_t block_sets2[] = { 3, 2, 1 };
static const uint8_t block_sets3[] = { 7, 6, 5, 3, 4, 2, 1 };
static const uint8_t block_sets4[] = { 15, 14, 13, 11, 7, 12, 10, 9, 6, 5, 3, 8, 4, 2, 1 };

// Cholesky factor of K_SS + eps I over the points of `mask` (their indices in idx): false if not positive.
static bool block_factor(int n, const double (*k)[COLLIDE_MANIFOLD_POINTS], double eps, uint8_t mask, int* idx,
						 int* m_out, double (*l)[COLLIDE_MANIFOLD_POINTS])
{
	int m = 0;
	for (int i = 0; i < n; ++i)
	{
		if (mask & (1 << i))
		{
			idx[m++] = i;
		}
	}
	*m_out = m;
	for (int i = 0; i < m; ++i)
	{
		for (int j = 0; j <= i; ++j)
		{
			double sum = k[idx[i]][idx[j]] + (i == j ? eps : 0.0);
			for (int t = 0; t < j; ++t)
			{
				sum -= l[i][t] * l[j][t];
			}
			if (i == j)
			{
				if (!(sum > 0.0))
				{
					return false;
				}
				l[i][i] = sqrt(sum);
			}
			else
			{
				l[i][j] = sum / l[j][j];
			}
		}
	}
	return true;
}

// With the factor of a set, its impulses (the others zero) and whether they satisfy the conditions.
static bool block_try(int n, const double (*k)[COLLIDE_MANIFOLD_POINTS], const double (*l)[COLLIDE_MANIFOLD_POINTS],
					  const int* idx, int m, uint8_t mask, const double* b, double tol, double* x)
{
	double y[COLLIDE_MANIFOLD_POINTS] = { 0.0 };
	for (int i = 0; i < m; ++i)
	{
		double sum = -b[idx[i]];
		for (int t = 0; t < i; ++t)
		{
			sum -= l[i][t] * y[t];
		}
		y[i] = sum / l[i][i];
	}
	for (int i = m - 1; i >= 0; --i)
	{
		double sum = y[i];
		for (int t = i + 1; t < m; ++t)
		{
			sum -= l[t][i] * y[t];
		}
		y[i] = sum / l[i][i];
	}
	for (int i = 0; i < n; ++i)
	{
		x[i] = 0.0;
	}
	for (int i = 0; i < m; ++i)
	{
		if (!(y[i] >= 0.0))
		{
			return false;
		}
		x[idx[i]] = y[i];
	}
	for (int i = 0; i < n; ++i)
	{
		if (mask & (1 << i))
		{
			continue;
		}
		double w = b[i];
		for (int j = 0; j < n; ++j)
		{
			w += k[i][j] * x[j];
		}
		if (!(w >= -tol))
		{
			return false;
		}
	}
	return true;
}

// Returns false (x unspecified) if no set satisfies the conditions to rounding: the caller then goes point by
// point. *hint: the set to try first, updated to the one that solved.
static bool block_lcp(const contact_constraint* cc, const double* b, double* x, uint8_t* hint)
{
	const int n = cc->point_count;
	const double(*k)[COLLIDE_MANIFOLD_POINTS] = (const double(*)[COLLIDE_MANIFOLD_POINTS])cc->block_k;
	double scale = 0.0, bmax = 0.0;
	for (int i = 0; i < n; ++i)
	{
		scale = fmax(scale, k[i][i]);
		bmax = fmax(bmax, fabs(b[i]));
	}
	if (!(scale > 0.0))
	{
		return false;
	}
	const double eps = 1e-9 * scale, tol = 1e-9 * bmax;
	const uint8_t full = (uint8_t)((1 << n) - 1);
	const uint8_t* sets = n == 2 ? block_sets2 : (n == 3 ? block_sets3 : block_sets4);
	const int set_count = n == 2 ? 3 : (n == 3 ? 7 : 15);
	int idx[COLLIDE_MANIFOLD_POINTS], m;
	double l[COLLIDE_MANIFOLD_POINTS][COLLIDE_MANIFOLD_POINTS] = { { 0.0 } };
	// No point pushing (idle and separating manifolds: the common case of side faces that only touch).
	bool none = true;
	for (int i = 0; i < n; ++i)
	{
		none = none && b[i] >= -tol;
	}
	if (none)
	{
		for (int i = 0; i < n; ++i)
		{
			x[i] = 0.0;
		}
		*hint = full; // when it pushes again, all points first
		return true;
	}
	for (int t = -1; t < set_count; ++t)
	{
		uint8_t mask = t < 0 ? *hint : sets[t];
		if (mask == 0 || (t >= 0 && mask == *hint))
		{
			continue;
		}
		if (mask == full && cc->block_factored)
		{
			for (int i = 0; i < n; ++i)
			{
				idx[i] = i;
			}
			if (block_try(n, k, (const double(*)[COLLIDE_MANIFOLD_POINTS])cc->block_l, idx, n, mask, b, tol, x))
			{
				*hint = mask;
				return true;
			}
			continue;
		}
		if (block_factor(n, k, eps, mask, idx, &m, l) &&
			block_try(n, k, (const double(*)[COLLIDE_MANIFOLD_POINTS])l, idx, m, mask, b, tol, x))
		{
			*hint = mask;
			return true;
		}
	}
	return false;
}

bool contact_block_lcp(int n, const double (*k)[COLLIDE_MANIFOLD_POINTS], const double* b, double* x)
{
	static const uint8_t block_sets1[] = { 1 };
	double scale = 0.0, bmax = 0.0;
	for (int i = 0; i < n; ++i)
	{
		scale = fmax(scale, k[i][i]);
		bmax = fmax(bmax, fabs(b[i]));
	}
	if (n < 1 || n > COLLIDE_MANIFOLD_POINTS || !(scale > 0.0))
	{
		return false;
	}
	const double eps = 1e-9 * scale, tol = 1e-9 * bmax;
	const uint8_t* sets = n == 1 ? block_sets1 : n == 2 ? block_sets2 : (n == 3 ? block_sets3 : block_sets4);
	const int set_count = n == 1 ? 1 : n == 2 ? 3 : (n == 3 ? 7 : 15);
	int idx[COLLIDE_MANIFOLD_POINTS], m;
	double l[COLLIDE_MANIFOLD_POINTS][COLLIDE_MANIFOLD_POINTS] = { { 0.0 } };
	double trial[COLLIDE_MANIFOLD_POINTS];
	for (int t = 0; t < set_count; ++t)
	{
		if (block_factor(n, k, eps, sets[t], idx, &m, l) &&
			block_try(n, k, (const double(*)[COLLIDE_MANIFOLD_POINTS])l, idx, m, sets[t], b, tol, trial))
		{
			memcpy(x, trial, (size_t)n * sizeof(double));
			return true;
		}
	}
	// No point pushing: every point separates by itself.
	for (int i = 0; i < n; ++i)
	{
		if (b[i] < -tol)
		{
			return false;
		}
	}
	memset(x, 0, (size_t)n * sizeof(double));
	return true;
}

// The normal rows (real, or the split impulse's pseudo rows) of a rigid manifold as one block. Returns
// false if the block solve found no solution (nothing applied).
static bool normal_block(sn_world* world, contact_constraint* cc, bool pseudo, double inv_hw, double slop, double beta,
						 double vmax)
{
	const int n = cc->point_count;
	double b[COLLIDE_MANIFOLD_POINTS] = { 0.0 }, x[COLLIDE_MANIFOLD_POINTS] = { 0.0 };
	for (int i = 0; i < n; ++i)
	{
		const contact_solver_point* sp = cc->points + i;
		double v = point_speed(world, cc, sp, 0, pseudo);
		double target;
		if (pseudo)
		{
			target = beta * (-sp->s - slop); // < 0 within the slop: the pseudo speed may close it, never pull
			target = target < vmax ? target : vmax;
		}
		else
		{
			target = sp->s > 0.0 ? -sp->s * inv_hw : 0.0; // speculative points: the gap may close
		}
		double acc = pseudo ? sp->push : sp->acc[0];
		double ka = 0.0;
		for (int j = 0; j < n; ++j)
		{
			ka += cc->block_k[i][j] * (pseudo ? cc->points[j].push : cc->points[j].acc[0]);
		}
		(void)acc;
		b[i] = v - ka - target;
	}
	if (!block_lcp(cc, b, x, &cc->block_mask[pseudo ? 1 : 0]))
	{
		return false;
	}
	for (int i = 0; i < n; ++i)
	{
		contact_solver_point* sp = cc->points + i;
		double* acc = pseudo ? &sp->push : &sp->acc[0];
		double delta = x[i] - *acc;
		*acc = x[i];
		if (delta != 0.0)
		{
			point_apply(world, cc, sp, 0, delta, pseudo);
		}
	}
	return true;
}

// Friction rows of a manifold, point by point: towards no sliding, inside the disk of mu times the point's
// normal impulse.
static void friction_sweep(sn_world* world, contact_constraint* cc)
{
	if (cc->friction <= 0.0)
	{
		return;
	}
	for (int p = 0; p < cc->point_count; ++p)
	{
		contact_solver_point* sp = cc->points + p;
		if (sp->mass[1] == 0.0 || sp->mass[2] == 0.0)
		{
			continue;
		}
		double f1 = sp->acc[1] - point_speed(world, cc, sp, 1, false) * sp->mass[1];
		double f2 = sp->acc[2] - point_speed(world, cc, sp, 2, false) * sp->mass[2];
		cone_clamp(&f1, &f2, cc->friction * sp->acc[0]);
		double d1 = f1 - sp->acc[1], d2 = f2 - sp->acc[2];
		sp->acc[1] = f1;
		sp->acc[2] = f2;
		if (d1 != 0.0)
		{
			point_apply(world, cc, sp, 1, d1, false);
		}
		if (d2 != 0.0)
		{
			point_apply(world, cc, sp, 2, d2, false);
		}
	}
}

void contact_solve_hold(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	if (cs->windows <= 1)
	{
		return;
	}
	const double inv_h = 1.0 / cs->h, start = cs->h * world->def.warm_start;
	bool any = false;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (!cc->holds || (cs->links_only && !cc->has_link))
		{
			continue;
		}
		any = true;
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			sp->s = sp->s0 + sp->offset_b - sp->offset_a; // the separation at the start of the solve
			// From last solve's forces over this whole solve (warm-started, as the windows are).
			double f[CONTACT_ROWS];
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				f[ri] = sp->mass[ri] > 0.0 ? sp->warm[ri] * start : 0.0;
				f[ri] = f[ri] == f[ri] ? f[ri] : 0.0;
			}
			f[0] = f[0] > 0.0 ? f[0] : 0.0;
			cone_clamp(f + 1, f + 2, cc->friction * f[0]);
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				sp->acc[ri] = f[ri];
				if (f[ri] != 0.0)
				{
					point_apply(world, cc, sp, ri, f[ri], false);
				}
			}
		}
	}
	if (!any)
	{
		return;
	}
	for (int sweep = 0; sweep < CONTACT_HOLD_SWEEPS; ++sweep)
	{
		for (int i = 0; i < cs->count; ++i)
		{
			contact_constraint* cc = cs->constraints + i;
			if (!cc->holds || (cs->links_only && !cc->has_link))
			{
				continue;
			}
			// The normals at their floors over the whole solve (inv_h): no approach, or for a gap s0 > 0 no
			// faster than closes it by the solve's end; the block LCP for a manifold of several points.
			bool blocked = cc->point_count > 1 && normal_block(world, cc, false, inv_h, 0.0, 0.0, 0.0);
			for (int p = 0; p < cc->point_count && !blocked; ++p)
			{
				contact_solver_point* sp = cc->points + p;
				if (sp->mass[0] == 0.0)
				{
					continue;
				}
				const double vn = point_speed(world, cc, sp, 0, false);
				double delta = -(vn + (sp->s > 0.0 ? sp->s * inv_h : 0.0)) * sp->mass[0];
				delta = clamp_at_least_zero(&sp->acc[0], delta);
				if (delta != 0.0)
				{
					point_apply(world, cc, sp, 0, delta, false);
				}
			}
			friction_sweep(world, cc);
		}
	}
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (!cc->holds || (cs->links_only && !cc->has_link))
		{
			continue;
		}
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				sp->hold[ri] = isfinite(sp->acc[ri]) ? sp->acc[ri] : 0.0;
				sp->acc[ri] = 0.0;
			}
		}
	}
}

void contact_solve_sweep(sn_world* world, bool position, bool frozen)
{
	contact_solver* cs = &world->contact_solver;
	const double inv_hw = 1.0 / cs->hw;
	const double slop = world->def.contact.slop;
	const double vmax = world->def.contact.max_push_speed;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (cs->links_only && !cc->has_link)
		{
			continue;
		}
		// Normals first: the friction bounds below take this sweep's normal impulses. A rigid manifold of
		// several points as one block (block_lcp), point by point otherwise.
		bool block = cc->point_count > 1 && !cc->soft;
		bool blocked = block && normal_block(world, cc, false, inv_hw, slop, cs->bias_rate, vmax);
		if (blocked && position)
		{
			bool pushing = false;
			for (int p = 0; p < cc->point_count; ++p)
			{
				pushing = pushing || cc->points[p].s < -slop || cc->points[p].push > 0.0;
			}
			if (pushing)
			{
				normal_block(world, cc, true, inv_hw, slop, cs->bias_rate, vmax);
			}
		}
		for (int p = 0; p < cc->point_count && !blocked; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			if (sp->mass[0] == 0.0)
			{
				continue;
			}
			const double s = sp->s;
			double vn = point_speed(world, cc, sp, 0, false);
			double delta;
			if (s > 0.0)
			{
				delta = -(vn + s * inv_hw) * sp->mass[0]; // speculative: only the gap may close
			}
			else if (cc->soft)
			{
				if (frozen)
				{
					continue;
				}
				delta = -sp->coef.eff_mass * (vn + sp->coef.bias_rate * s) - sp->coef.impulse_scale * sp->acc[0];
			}
			else
			{
				delta = -vn * sp->mass[0];
			}
			delta = clamp_at_least_zero(&sp->acc[0], delta);
			if (delta != 0.0)
			{
				point_apply(world, cc, sp, 0, delta, false);
			}
			if (position && !cc->soft && (s < -slop || sp->push > 0.0))
			{
				// Split impulse: pseudo speeds that remove the penetration beyond the slop.
				double target = s < -slop ? cs->bias_rate * (-s - slop) : 0.0;
				target = target < vmax ? target : vmax;
				double dq = (target - point_speed(world, cc, sp, 0, true)) * sp->mass[0];
				dq = clamp_at_least_zero(&sp->push, dq);
				if (dq != 0.0)
				{
					point_apply(world, cc, sp, 0, dq, true);
				}
			}
		}
		friction_sweep(world, cc);
	}
}

void contact_solve_restitution(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	const double threshold = world->def.contact.restitution_threshold;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (cs->links_only && !cc->has_link)
		{
			continue;
		}
		if (cc->restitution == 0.0)
		{
			continue;
		}
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			bool pushed = sp->solve_total[0] + (sp->acc[0] - sp->counted[0]) > 0.0;
			if (sp->mass[0] == 0.0 || !(sp->vn0 < -threshold) || !pushed)
			{
				continue;
			}
			double vn = point_speed(world, cc, sp, 0, false);
			double delta = -sp->mass[0] * (vn + cc->restitution * sp->vn0);
			delta = clamp_at_least_zero(&sp->acc[0], delta);
			if (delta != 0.0)
			{
				point_apply(world, cc, sp, 0, delta, false);
			}
		}
	}
}

void contact_window_end(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (cs->links_only && !cc->has_link)
		{
			continue;
		}
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				double d = sp->acc[ri] - sp->counted[ri];
				sp->solve_total[ri] += d;
				sp->step_total[ri] += d;
				sp->counted[ri] = sp->acc[ri];
			}
		}
	}
}

void contact_solve_end(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	const double inv_h = 1.0 / cs->h;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (cs->links_only && !cc->has_link)
		{
			continue;
		}
		for (int p = 0; p < cc->point_count; ++p)
		{
			contact_solver_point* sp = cc->points + p;
			for (int ri = 0; ri < CONTACT_ROWS; ++ri)
			{
				sp->warm[ri] = sp->solve_total[ri] * inv_h;
			}
		}
	}
}

// ---- the articulations' path of XPBD and DIRECT worlds ---------------------------------------------------

void contact_link_pass_tgs(sn_world* world, double h)
{
	contact_solver* cs = &world->contact_solver;
	world->solver_subset = SUBSET_ARTICULATED;
	cs->links_only = true;
	tgs_substep(world, h);
	cs->links_only = false;
	world->solver_subset = SUBSET_ALL;
}
