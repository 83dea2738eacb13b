// Contacts in XPBD worlds, from Mueller, Macklin, Chentanez, Jeschke and Kim, "Detailed Rigid Body Simulation
// with Extended Position Based Dynamics" (2020): sec. 3.5 "Handling contacts and friction", sec. 3.6
// "Velocity level" and Algorithm 2, inside the substeps of xpbd.c. The constraints are contact/solver.c's
// (one per manifold, built once per step from the pair cache, as the paper collects its contact pairs once
// per step; the speculative margin of contact/update.c keeps every point a step can reach). Solved here:
// those whose two sides are the ground (the world or a static body) or maximal bodies. A contact with an
// articulation link side belongs to the link pass of contact/solver.c.
//
// Geometry. A point of a manifold with normal n (from A to B) was at x0 with separation s0 when the step
// began. Each side carries it as an anchor: the paper keeps r1, r2 in the bodies' frames and evaluates
// p_i = x_i + R_i r_i at the current pose. We keep the lever r0 = x0 - x_com and the orientation q0 of the
// body at the start of the world substep, and move the anchor with the body's displacement and its rotation
// theta = log(q q0^-1) linearised,
//   p = x_com + r0 + theta x r0,        s = s0 + n . (p_B - p_A)          (the paper's d = (p1 - p2) . n,
// with body 1 = A, 2 = B and the sign turned: s < 0 overlaps). The gradients of s are then n and r0 x n on
// each side, whatever the rotation, so every correction (w, levers) and every point speed (v + w x r0) uses
// the lever r0 - the TGS rows' linearisation in contact/solver.c, and the same contact geometry as TGS.
// Why not the material point the paper moves: the manifold is measured once per step, and a rolling
// sphere's material point leaves the plane by r (1 - cos phi) as the sphere turns by phi within the step,
// so its contact lets go in the later substeps of every step: with the paper's anchors the sphere of C4
// pushed in a third of the substeps and rolled down at +0.8% of (5/7) g sin 20, slipping; with the
// linearised anchor it pushes in every substep and rolls at (5/7) g sin 20 to 6 digits without slip.
// Generalized inverse masses (the paper's eq. 2-3): a correction of multiplier lambda along a unit
// direction d moves B by +lambda and A by -lambda (the convention of xpbd_blocks.c): x_B += m_B^-1 lambda d,
// theta_B += I_B^-1 (r0_B x d) lambda, A the opposite, so p_B - p_A moves by w lambda d with
// w = sum over the sides of m^-1 + (r0 x d) . I^-1 (r0 x d) (zero for the ground and kinematic bodies,
// which move only as they are driven). Blocks of rows take K = J M^-1 J^T among them.
//
// Position pass. In each XPBD substep of hx the contacts are swept after the joints in xpbd.c's forward
// sweep and before them in its backward one (a symmetric Gauss-Seidel sweep over joints and contacts;
// xpbd.c says why symmetric), in each sweep a manifold's normals first, then static friction.
//   Normal (the paper: "if d > 0 apply dx = d n with alpha = 0"): C = s - s_target >= 0 with compliance
//   alpha and alpha~ = alpha / hx^2 (eq. 4-5),
//     dlambda_n = (-C - alpha~ lambda_n) / (w_n + alpha~),   lambda_n <- max(lambda_n + dlambda_n, 0)
//   lambda_n the multiplier accumulated in this substep (0 when it starts, as in the paper's single
//   iteration; the backward sweep continues it, and the clamp lets a point the forward sweep pushed too far
//   let go: projected Gauss-Seidel on the inequality). Rigid contacts have alpha = 0 and the normals of a
//   manifold of several points are one block, the linear complementarity problem of PGS and TGS's manifold
//   solve at the position level (contact_block_lcp): one corner after another rocks a box on a face.
//   Static friction (the paper: dp = (p1 - pbar1) - (p2 - pbar2), dp_t = dp - (dp . n) n, corrected "if
//   lambda_t < mu_s lambda_n"): pbar the anchors at the substep's start, dp = (p_B - pbar_B) - (p_A - pbar_A)
//   the relative motion of the anchors in this substep, -dp_t the correction, dlambda_t = |dp_t| / w_t. The
//   material has one friction coefficient: mu_s = mu_d = mu, the manifold's mixed friction.
//   A manifold of several pushing points takes it as one block with its normals: the corrections that bring
//   every normal to its target and cancel every point's dp_t at once (the patch held in place), applied if
//   every point's accumulated multipliers end within its Coulomb disk, |lambda_t| <= mu lambda_n with
//   lambda_n >= 0 (the paper's condition, for each point of the distribution the block finds). The block's
//   K is singular (four points on a face: rank three among the normals and three among the tangents), so it
//   is regularised: the tangents weighted by the inverse of each point's share of the normal load, which of
//   the exact solutions picks the one with friction in proportion to the normal load (a few solves, the
//   shares taken from the normals the block finds). Why a block: friction at a box's base acts below its
//   centre of mass and tips it, the normals then untip it and shift the base again, and a point's share of
//   friction depends on the order of the points; corrected one after another, a box on a 30 degree incline
//   with mu = 0.7 crept 3.2 mm in 2 s (1.2 mm with the disk projection below); with the block it stays to
//   1e-16 m. Otherwise, and for one point, each point is corrected by itself with its accumulated
//   multiplier projected onto its disk (the paper applies all of the correction or none: a point that
//   would exceed its bound then holds nothing, and one corner trying to hold a whole box lets it slide).
//   A point at its bound slides with the friction its disk allows. A manifold at rest (its points moved
//   less than 1e-14 m tangentially, rounding, and hold no friction) skips friction (friction_idle).
//   A position correction acts over the substep: its impulse is dlambda / hx (the paper's force
//   dlambda / hx^2 times hx), which each point's step_total adds up along n and the manifold's tangents, as
//   the joints report theirs.
//
// Velocity pass (after xpbd.c derives the velocities; for the points that pushed in this substep,
// lambda_n > 0). v = v_B + w_B x r0_B - (v_A + w_A x r0_A), vn = n . v, vt = v - vn n, and vtilde_n the normal
// speed at the substep's start, before integration (the paper's "normal velocity before the velocity
// update").
//   Restitution (eq. 34, dv = n (-vn + min(-e vtilde_n, 0)), with our sign of n): the normal speed is set to
//   -e vtilde_n if the point approached faster than the world's restitution_threshold (the paper uses
//   2 |g| h; sn_contact_settings has its own threshold, the one PGS and TGS use), else to 0:
//     P_n = (vn' - vn) / w_n,   clamped to P_n >= -lambda_n / hx
//   The clamp keeps the point's total impulse of the substep, lambda_n / hx + P_n, non-negative (the
//   paper's unclamped dv would pull). A rigid manifold's pushing points take it as one linear complementarity
//   problem on those totals (the same rule for all of them at once).
//   Dynamic friction (eq. 30-31, dv = -vt / |vt| min(h mu_d |f_n|, |vt|), f_n = lambda_n / h^2): h mu f_n is
//   an impulse (N*s), so the velocity it may change is that times w_t; with what static friction already
//   used of the disk taken off,
//     P_t = min(mu lambda_n / hx - |lambda_t| / hx, |vt| / w_t)   against vt
//   which stops a sliding point without reversing it and holds Coulomb's law over the substep: a box slides
//   down an incline at g (sin a - mu cos a) and stops on flat ground after v0^2 / (2 mu g). The disk's
//   remainder is shared over the manifold's points so that the manifold never exceeds mu times its normal
//   multipliers (a point's lambda_n may end below the one its static friction was bounded by). A rigid
//   manifold of several points first tries the block of the position pass at the velocity level: normal
//   speeds at their targets and tangential speeds zero together, if every point's friction over the
//   substep stays within mu lambda_n / hx (a friction impulse below the centre of mass, alone, tips the box).
//   The pass runs in every substep, whatever velocity_iterations says (it holds friction and restitution,
//   not optional damping; TGS too always runs its velocity sweep when there are contacts).
//
// Slop and deep overlaps (our choice; the paper projects every penetration at once). XPBD leaves no slop:
// a rigid point is pushed out of any overlap it starts a substep in, at most max_push_speed * hx per
// substep,
//   s_target = 0 (s_start >= 0),   min(0, s_start + v_max hx) (s_start < 0)
// with s_start its separation when the substep begins. PGS and TGS keep the penetration within the slop
// because their warm-started velocity rows hold a resting contact still; XPBD restarts its multipliers in
// every substep, and what two sweeps leave unresolved of a stack's weight would add up, substep after
// substep, to the slop at every contact: the 10-box stack of C5 at 1/240 s sank 4.6 mm (ten times the
// slop) holding penetrations within the slop, 0.07 mm without. Resting
// contacts do not flicker either way: the speculative margin keeps touching points in the manifold.
// Energy: a position correction becomes velocity when xpbd.c derives velocities from positions. A push
// moves a point by at most v_max hx, so the velocity it leaves is at most max_push_speed along n, and the
// velocity pass takes it back (the normal speed is set to 0, or to -e vtilde_n, and the push's own
// multiplier leaves room for the clamp): a box created 5 cm into the ground moves out at 1 m/s (the
// default max_push_speed) with no speed left at the end of any substep, and rests where it comes out,
// instead of the paper's 5 cm in one substep (400 m/s of derived velocity at hx = 1/8 ms) into whatever
// lies beyond. Bodies that overlap one another as well as the
// ground can leave with up to about max_push_speed: the pushes between them are taken back pairwise.
//
// Soft contacts. The manifold's softness (contact/solver.c scales a stiffness or compliance to each of its
// n points, so the manifold is one spring) maps through soft_xpbd_for (constraint/soft.h), the mapping every
// solver uses: alpha~ = c / hx^2 with c = 1/k per point (a frequency form takes the point's w_n). A soft
// point rests at s = 0 (no push limit: its spring is the physics). Under a constant load F on the point
// the substep's prediction moves it by F w_n hx^2 and the correction leaves alpha~ / (w_n + alpha~) of the
// resulting overlap; the fixed point is -s = F hx^2 alpha~ = F c for any hx (xpbd_blocks.c derives the same
// for soft joint blocks), and the manifold's points together sink by F c. In the velocity pass a soft point
// is not brought to rest: its damping b acts as the implicit dashpot of xpbd_blocks.c,
// P_n = -vn / (w_n + 1/(hx b)), clamped as above; restitution does not apply to soft contacts (the spring
// rebounds by itself, as its damping lets it).
#include "solver/xpbd_contacts.h"

#include "body.h"
#include "contact/solver.h"
#include "math/mathx.h"
#include "solver/xpbd_blocks.h"
#include "world.h"

#include <math.h>

enum
{
	MAX_POINTS = COLLIDE_MANIFOLD_POINTS,
	MAX_ROWS = 3 * MAX_POINTS, // a block: the normal and the two tangents of each point
};

// A contact side as the corrections see it.
typedef struct side
{
	body* b;                 // NULL: the ground (the world or a static body), which never moves
	solver_body* s;          // its velocities (the ground's slot for the ground)
	const xpbd_pose* before; // its pose at the substep's start (NULL for the ground)
	double im;               // inverse mass, 1/kg; 0 unless dynamic
	sn_mat33 ii;             // world inverse inertia; zero unless dynamic
	// The rotation since the world substep's start, theta = log(q q0^-1), now (kept current by side_moved)
	// and at the substep's start (the manifold's points share q0: their body's orientation then).
	sn_quat q0;
	sn_vec3 theta, theta_before;
} side;

// A point's anchor on one side: the world point for the ground; for a body its lever r0 from the centre of
// mass at the start of the world substep.
typedef struct anchor
{
	sn_vec3 x; // the ground's point (m, world)
	sn_vec3 r0;
} anchor;

static bool owned(const contact_constraint* cc)
{
	return !cc->has_link;
}

static sn_vec3 rotation_since(sn_quat q, sn_quat q0)
{
	return quat_log(sn_quat_mul(q, sn_quat_conj(q0)));
}

static void side_make(sn_world* world, const contact_constraint* cc, bool is_b, side* out)
{
	const contact_side* cs = is_b ? &cc->b : &cc->a;
	if (cs->kind != SIDE_BODY)
	{
		out->b = NULL;
		out->s = world->solver_bodies;
		out->before = NULL;
		out->im = 0.0;
		out->ii = sn_mat33_zero();
		return;
	}
	body* b = world->bodies + cs->body;
	const solver_body_info* info = world->solver_infos + cs->solver;
	const bool dynamic = b->type == SN_BODY_DYNAMIC;
	out->b = b;
	out->s = world->solver_bodies + cs->solver;
	out->before = world->xpbd.before + cs->solver;
	out->im = dynamic ? info->inv_mass : 0.0;
	out->ii = dynamic ? info->inv_inertia : sn_mat33_zero();
	out->q0 = cc->point_count == 0 ? b->q : is_b ? cc->points[0].q_b : cc->points[0].q_a;
	out->theta = rotation_since(b->q, out->q0);
	out->theta_before = rotation_since(out->before->q, out->q0);
}

static anchor anchor_a(const contact_solver_point* sp)
{
	return (anchor){ sp->local_a, sp->ra };
}

static anchor anchor_b(const contact_solver_point* sp)
{
	return (anchor){ sp->local_b, sp->rb };
}

// The anchor at the current pose: x_com + r0 + theta x r0.
static sn_vec3 anchor_now(const side* s, const anchor* an)
{
	if (s->b == NULL)
	{
		return an->x;
	}
	return sn_add(s->b->com, sn_add(an->r0, sn_cross(s->theta, an->r0)));
}

// The anchor at the substep's start.
static sn_vec3 anchor_before(const side* s, const anchor* an)
{
	if (s->b == NULL)
	{
		return an->x;
	}
	return sn_add(s->before->x, sn_add(an->r0, sn_cross(s->theta_before, an->r0)));
}

// Velocity of the side's point at lever r, v + w x r (the ground's is zero).
static sn_vec3 point_velocity(const side* s, sn_vec3 r)
{
	if (s->b == NULL)
	{
		return sn_v3(0, 0, 0);
	}
	return sn_add(s->s->v, sn_cross(s->s->w, r));
}

// m^-1 + (r x d) . I^-1 (r x d) at lever r along unit d.
static double side_w(const side* s, sn_vec3 r, sn_vec3 d)
{
	if (!(s->im > 0.0))
	{
		return 0.0;
	}
	sn_vec3 rd = sn_cross(r, d);
	return s->im + sn_dot(rd, sn_mat33_mul_v(s->ii, rd));
}

// Move a side's body by dx and turn it by dtheta, keeping its theta current.
static void side_displace(side* s, sn_vec3 dx, sn_vec3 dtheta)
{
	xpbd_move_body(s->b, dx, dtheta);
	s->theta = rotation_since(s->b->q, s->q0);
}

// A position correction of the vector multiplier l (N*s^2) at lever r: x += m^-1 l, theta += I^-1 (r x l).
static void side_move(side* s, sn_vec3 r, sn_vec3 l)
{
	if (s->im > 0.0)
	{
		side_displace(s, sn_scale(s->im, l), sn_mat33_mul_v(s->ii, sn_cross(r, l)));
	}
}

// An impulse P (N*s) at lever r: v += m^-1 P, w += I^-1 (r x P).
static void side_push(side* s, sn_vec3 r, sn_vec3 impulse)
{
	if (s->im > 0.0)
	{
		s->s->v = sn_mul_add(s->s->v, s->im, impulse);
		s->s->w = sn_add(s->s->w, sn_mat33_mul_v(s->ii, sn_cross(r, impulse)));
	}
}

// The impulse P (N*s, on B; A takes -P) in the point's step totals, along n and the two tangents.
static void account(const contact_constraint* cc, contact_solver_point* sp, sn_vec3 impulse)
{
	sp->step_total[0] += sn_dot(cc->normal, impulse);
	sp->step_total[1] += sn_dot(cc->tangent[0], impulse);
	sp->step_total[2] += sn_dot(cc->tangent[1], impulse);
}

// A point's anchors, levers and separation at the current poses.
typedef struct point_now
{
	sn_vec3 pa, pb; // anchors, m
	sn_vec3 ra, rb; // levers, m
	double s;       // separation, m
} point_now;

static point_now measure(const contact_constraint* cc, const contact_solver_point* sp, const side* a, const side* b)
{
	point_now m;
	anchor an_a = anchor_a(sp), an_b = anchor_b(sp);
	m.pa = anchor_now(a, &an_a);
	m.pb = anchor_now(b, &an_b);
	m.ra = a->b == NULL ? sn_v3(0, 0, 0) : an_a.r0;
	m.rb = b->b == NULL ? sn_v3(0, 0, 0) : an_b.r0;
	m.s = sp->s0 + sn_dot(cc->normal, sn_sub(m.pb, m.pa));
	return m;
}

// The velocity of B's point relative to A's.
static sn_vec3 relative_velocity(const side* a, const side* b, const point_now* m)
{
	return sn_sub(point_velocity(b, m->rb), point_velocity(a, m->ra));
}

// ---- the world substep ----------------------------------------------------------------------------------

bool xpbd_contacts_prepare(sn_world* world)
{
	contact_solver* cs = &world->contact_solver;
	bool any = false;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (!owned(cc))
		{
			continue;
		}
		any = true;
		cc->a.solver = cc->a.kind == SIDE_BODY ? world->bodies[cc->a.body].solver_index : 0;
		cc->b.solver = cc->b.kind == SIDE_BODY ? world->bodies[cc->b.body].solver_index : 0;
		// The levers from the material anchors now (the separation at this pose is the material one).
		const body* ba = cc->a.kind == SIDE_BODY ? world->bodies + cc->a.body : NULL;
		const body* bb = cc->b.kind == SIDE_BODY ? world->bodies + cc->b.body : NULL;
		for (int k = 0; k < cc->point_count; ++k)
		{
			contact_solver_point* sp = cc->points + k;
			if (ba != NULL)
			{
				sp->ra = sn_rotate(ba->q, sn_sub(sp->local_a, ba->local_com));
				sp->q_a = ba->q;
			}
			if (bb != NULL)
			{
				sp->rb = sn_rotate(bb->q, sn_sub(sp->local_b, bb->local_com));
				sp->q_b = bb->q;
			}
		}
	}
	return any;
}

void xpbd_contacts_begin_substep(sn_world* world, double hx)
{
	contact_solver* cs = &world->contact_solver;
	const double push = world->def.contact.max_push_speed * hx;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (!owned(cc))
		{
			continue;
		}
		side a, b;
		side_make(world, cc, false, &a);
		side_make(world, cc, true, &b);
		for (int k = 0; k < cc->point_count; ++k)
		{
			contact_solver_point* sp = cc->points + k;
			point_now m = measure(cc, sp, &a, &b);
			sp->s = !cc->soft && m.s < 0.0 ? fmin(0.0, m.s + push) : 0.0; // the push limit (see the top)
			sp->vn0 = sn_dot(cc->normal, sn_sub(point_velocity(&b, m.rb), point_velocity(&a, m.ra)));
			sp->acc[0] = sp->acc[1] = sp->acc[2] = 0.0;
		}
	}
}

// ---- blocks ---------------------------------------------------------------------------------------------

// Rows of one manifold solved together: some of its points, each with its normal row, or its normal and
// tangent rows, and K = J M^-1 J^T among them.
typedef struct patch
{
	int count;               // points
	int idx[MAX_POINTS];     // their indices in the manifold
	point_now m[MAX_POINTS]; // their anchors, levers and separations now
	double load;             // the sum of their normal multipliers, N*s^2
	int rows;
	int point[MAX_ROWS];   // each row's point (index into idx)
	sn_vec3 dir[MAX_ROWS]; // each row's direction (on B; A takes the opposite)
	double k[MAX_ROWS][MAX_ROWS];
	double scale; // the largest diagonal entry of K
} patch;

// The manifold's points into the patch: all of them, or those pushing in this substep (lambda_n > 0).
static void patch_points(const contact_constraint* cc, const side* a, const side* b, bool pushing, patch* p)
{
	p->count = 0;
	p->load = 0.0;
	const int n = cc->point_count < MAX_POINTS ? cc->point_count : MAX_POINTS;
	for (int i = 0; i < n; ++i)
	{
		const contact_solver_point* sp = cc->points + i;
		if (pushing && !(sp->acc[0] > 0.0))
		{
			continue;
		}
		p->idx[p->count] = i;
		p->m[p->count] = measure(cc, sp, a, b);
		p->load += sp->acc[0];
		p->count += 1;
	}
}

// Rows of the patch's points: the normals (tangents false) or each point's normal, tangent[0] and
// tangent[1] (in that order), and their K.
static void patch_rows(const contact_constraint* cc, const side* a, const side* b, bool tangents, patch* p)
{
	sn_vec3 ta[MAX_ROWS], tb[MAX_ROWS], ia[MAX_ROWS], ib[MAX_ROWS];
	const int per = tangents ? 3 : 1;
	p->rows = per * p->count;
	for (int r = 0; r < p->rows; ++r)
	{
		int i = r / per, t = r % per;
		p->point[r] = i;
		p->dir[r] = t == 0 ? cc->normal : cc->tangent[t - 1];
		ta[r] = sn_cross(p->m[i].ra, p->dir[r]);
		tb[r] = sn_cross(p->m[i].rb, p->dir[r]);
		ia[r] = sn_mat33_mul_v(a->ii, ta[r]);
		ib[r] = sn_mat33_mul_v(b->ii, tb[r]);
	}
	p->scale = 0.0;
	for (int r = 0; r < p->rows; ++r)
	{
		for (int c = 0; c <= r; ++c)
		{
			double k = (a->im + b->im) * sn_dot(p->dir[r], p->dir[c]) + sn_dot(ta[r], ia[c]) + sn_dot(tb[r], ib[c]);
			p->k[r][c] = k;
			p->k[c][r] = k;
		}
		p->scale = fmax(p->scale, p->k[r][r]);
	}
}

// Apply the rows' changes x (position multipliers, N*s^2, or impulses, N*s) to the two sides at once, and
// add them to the points' step totals (a multiplier's impulse is x / hx: to_impulse).
static void patch_apply(contact_constraint* cc, side* a, side* b, const patch* p, const double* x, bool positions,
						double to_impulse)
{
	sn_vec3 la = sn_v3(0, 0, 0), lb = sn_v3(0, 0, 0), ra = sn_v3(0, 0, 0), rb = sn_v3(0, 0, 0);
	for (int r = 0; r < p->rows; ++r)
	{
		const point_now* m = p->m + p->point[r];
		sn_vec3 l = sn_scale(x[r], p->dir[r]);
		lb = sn_add(lb, l);
		rb = sn_add(rb, sn_cross(m->rb, l));
		la = sn_sub(la, l);
		ra = sn_sub(ra, sn_cross(m->ra, l));
		account(cc, cc->points + p->idx[p->point[r]], sn_scale(to_impulse, l));
	}
	side* sides[2] = { a, b };
	sn_vec3 lin[2] = { la, lb }, ang[2] = { ra, rb };
	for (int i = 0; i < 2; ++i)
	{
		side* s = sides[i];
		if (!(s->im > 0.0))
		{
			continue;
		}
		sn_vec3 dx = sn_scale(s->im, lin[i]), dtheta = sn_mat33_mul_v(s->ii, ang[i]);
		if (positions)
		{
			side_displace(s, dx, dtheta);
		}
		else
		{
			s->s->v = sn_add(s->s->v, dx);
			s->s->w = sn_add(s->s->w, dtheta);
		}
	}
}

// The normal rows of the patch as one linear complementarity problem (contact_block_lcp): x >= 0, w = K x +
// b >= 0, x_i w_i = 0, for x the rows' totals and b the rows' values at x = 0. False if it has no solution.
static bool patch_lcp(const patch* p, const double* b, double* x)
{
	double k[MAX_POINTS][MAX_POINTS];
	for (int r = 0; r < p->rows; ++r)
	{
		for (int c = 0; c < p->rows; ++c)
		{
			k[r][c] = p->k[r][c];
		}
	}
	return contact_block_lcp(p->rows, (const double(*)[MAX_POINTS])k, b, x);
}

// Solve (K + diag(e) + diag(at)) x = rhs by Cholesky, with e the regularisation of the rows: 1e-9 of K's
// scale for the normal rows and that over the point's share of the patch's load for the tangent rows, and
// at the normal rows' compliance (soft contacts; zero otherwise). K of a patch is singular (the normal and
// tangent rows of four points on a face have rank six at most, three among the normals and three among the
// tangents): of the exact solutions this picks the least norm weighted by 1 / share in the tangents, the one
// closest to friction in proportion to the normal load, and in the normals the even share PGS and TGS
// pick. False if a pivot is not positive.
static bool patch_solve(const patch* p, const double* share, const double* at, const double* rhs, double* x)
{
	double l[MAX_ROWS][MAX_ROWS] = { { 0.0 } };
	double y[MAX_ROWS];
	for (int i = 0; i < p->rows; ++i)
	{
		for (int j = 0; j <= i; ++j)
		{
			double sum = p->k[i][j];
			if (i == j)
			{
				bool normal = i % 3 == 0; // a point's rows come as its normal, tangent[0], tangent[1]
				double w = share[p->point[i]] > 1e-6 ? share[p->point[i]] : 1e-6;
				sum += 1e-9 * p->scale / (normal ? 1.0 : w) + (normal ? at[p->point[i]] : 0.0);
			}
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
	for (int i = 0; i < p->rows; ++i)
	{
		double sum = rhs[i];
		for (int t = 0; t < i; ++t)
		{
			sum -= l[i][t] * y[t];
		}
		y[i] = sum / l[i][i];
	}
	for (int i = p->rows - 1; i >= 0; --i)
	{
		double sum = y[i];
		for (int t = i + 1; t < p->rows; ++t)
		{
			sum -= l[t][i] * x[t];
		}
		x[i] = sum / l[i][i];
	}
	return true;
}

// Whether a point's normal total n and friction total (t1, t2) lie in its Coulomb disk, to rounding.
static bool in_disk(double mu, double n, double t1, double t2)
{
	return n >= 0.0 && hypot(t1, t2) <= mu * n * (1.0 + 1e-9);
}

// ---- position pass ----------------------------------------------------------------------------------------

// The relative tangential motion of a point's anchors in this substep (static friction's dp).
static sn_vec3 tangential_motion(const contact_constraint* cc, const contact_solver_point* sp, const side* a,
								 const side* b, const point_now* m)
{
	anchor an_a = anchor_a(sp), an_b = anchor_b(sp);
	sn_vec3 dp = sn_sub(sn_sub(m->pb, anchor_before(b, &an_b)), sn_sub(m->pa, anchor_before(a, &an_a)));
	return sn_mul_add(dp, -sn_dot(dp, cc->normal), cc->normal);
}

// The compliance alpha~ of a point's normal row (0 for rigid contacts; INFINITY: no stiffness).
static double normal_compliance(const contact_constraint* cc, double w, double hx)
{
	double at = 0.0, dc;
	if (cc->soft && !soft_xpbd_for(cc->softness, w, hx, &at, &dc))
	{
		at = 0.0;
	}
	return at;
}

// The normal correction of one point.
static void normal_correction(contact_constraint* cc, contact_solver_point* sp, side* a, side* b, double hx)
{
	const sn_vec3 n = cc->normal;
	point_now m = measure(cc, sp, a, b);
	double w = side_w(a, m.ra, n) + side_w(b, m.rb, n);
	double at = normal_compliance(cc, w, hx);
	if (!(w > 0.0) || isinf(at))
	{
		return; // nothing moves, or no stiffness (a pure damper acts in the velocity pass only)
	}
	double lambda = sp->acc[0];
	double next = lambda + (sp->s - m.s - at * lambda) / (w + at);
	next = next > 0.0 ? next : 0.0;
	double dl = next - lambda;
	if (dl == 0.0)
	{
		return;
	}
	sp->acc[0] = next;
	sn_vec3 l = sn_scale(dl, n);
	side_move(b, m.rb, l);
	side_move(a, m.ra, sn_neg(l));
	account(cc, sp, sn_scale(1.0 / hx, l));
}

// The normals of a rigid manifold of several points as one block: the multipliers x >= 0 after which every
// point is at or beyond its target, x_i = 0 where it is beyond (contact_block_lcp, the manifold solve of
// PGS and TGS at the position level: one point after another rocks a box on a face, since K of four
// points on a face has rank three). Linear in the corrections: the rotations make it exact to second
// order, which the next sweep takes up. False (nothing applied) if the block has no solution.
static bool normal_block(contact_constraint* cc, side* a, side* b, double hx)
{
	patch p;
	patch_points(cc, a, b, false, &p);
	// Apart (every point at or beyond its target, none pushing yet): nothing to solve.
	bool apart = true;
	for (int i = 0; i < p.count && apart; ++i)
	{
		apart = cc->points[i].acc[0] == 0.0 && p.m[i].s >= cc->points[i].s;
	}
	if (apart)
	{
		return true;
	}
	patch_rows(cc, a, b, false, &p);
	double rhs[MAX_POINTS], x[MAX_POINTS];
	for (int i = 0; i < p.count; ++i)
	{
		rhs[i] = p.m[i].s - cc->points[i].s;
		for (int j = 0; j < p.count; ++j)
		{
			rhs[i] -= p.k[i][j] * cc->points[j].acc[0];
		}
	}
	if (!patch_lcp(&p, rhs, x))
	{
		return false;
	}
	for (int i = 0; i < p.count; ++i)
	{
		double total = x[i];
		x[i] -= cc->points[i].acc[0];
		cc->points[i].acc[0] = total;
	}
	patch_apply(cc, a, b, &p, x, true, 1.0 / hx);
	return true;
}

// Static friction of one point: cancel the tangential motion of its anchors in this substep, with the
// accumulated multiplier projected onto the disk |lambda_t| <= mu lambda_n (also when the point has not
// moved: its normal multiplier may have shrunk since).
static void static_friction(contact_constraint* cc, contact_solver_point* sp, side* a, side* b, double hx)
{
	const double bound = sp->acc[0] > 0.0 ? cc->friction * sp->acc[0] : 0.0;
	point_now m = measure(cc, sp, a, b);
	double l1 = sp->acc[1], l2 = sp->acc[2];
	if (bound > 0.0)
	{
		sn_vec3 dpt = tangential_motion(cc, sp, a, b, &m);
		double len = sn_length(dpt);
		sn_vec3 d = len > 0.0 ? sn_scale(-1.0 / len, dpt) : cc->tangent[0];
		double w = side_w(a, m.ra, d) + side_w(b, m.rb, d);
		double dl = len > 0.0 && w > 0.0 ? len / w : 0.0;
		l1 += dl * sn_dot(d, cc->tangent[0]);
		l2 += dl * sn_dot(d, cc->tangent[1]);
	}
	double size = hypot(l1, l2);
	if (size > bound)
	{
		double f = bound > 0.0 ? bound / size : 0.0; // at the bound: the point slides with the friction it allows
		l1 *= f;
		l2 *= f;
	}
	if (l1 == sp->acc[1] && l2 == sp->acc[2])
	{
		return;
	}
	sn_vec3 l = sn_add(sn_scale(l1 - sp->acc[1], cc->tangent[0]), sn_scale(l2 - sp->acc[2], cc->tangent[1]));
	sp->acc[1] = l1;
	sp->acc[2] = l2;
	side_move(b, m.rb, l);
	side_move(a, m.ra, sn_neg(l));
	account(cc, sp, sn_scale(1.0 / hx, l));
}

// Static friction of a manifold's pushing points with their normals, as one block: the corrections that
// bring every normal to its target and cancel every point's tangential motion in this substep (the patch
// held in place). Applied only if every point's normal multiplier stays >= 0 and its friction within its
// disk (the paper's lambda_t < mu_s lambda_n, for each point of a distribution the block finds);
// otherwise nothing is applied and the points go one by one. Why a block: friction at a box's base acts
// below its centre of mass and tips it, the normals then untip it and shift the base again; corrected one
// after the other, normals and friction of a box on a 30 degree incline with mu 0.7 let it creep 1.2 mm in 2 s,
// and a point-by-point static friction makes one corner try to hold the whole box.
static bool stick_block(contact_constraint* cc, side* a, side* b, double hx)
{
	patch p;
	patch_points(cc, a, b, true, &p);
	if (p.count < 2)
	{
		return false;
	}
	patch_rows(cc, a, b, true, &p);
	double rhs[MAX_ROWS], x[MAX_ROWS], at[MAX_POINTS];
	for (int i = 0; i < p.count; ++i)
	{
		const contact_solver_point* sp = cc->points + p.idx[i];
		at[i] = normal_compliance(cc, p.k[3 * i][3 * i], hx);
		if (isinf(at[i]))
		{
			return false;
		}
		sn_vec3 dpt = tangential_motion(cc, sp, a, b, p.m + i);
		rhs[3 * i] = sp->s - p.m[i].s - at[i] * sp->acc[0];
		rhs[3 * i + 1] = -sn_dot(dpt, cc->tangent[0]);
		rhs[3 * i + 2] = -sn_dot(dpt, cc->tangent[1]);
	}
	// The weights follow the normals the block itself finds (the friction's torque moves load between the
	// points): a few solves, the first distribution within every disk wins.
	double share[MAX_POINTS];
	for (int i = 0; i < p.count; ++i)
	{
		share[i] = cc->points[p.idx[i]].acc[0] / p.load;
	}
	bool held = false;
	for (int attempt = 0; attempt < 3 && !held; ++attempt)
	{
		if (!patch_solve(&p, share, at, rhs, x))
		{
			return false;
		}
		held = true;
		double load = 0.0;
		for (int i = 0; i < p.count; ++i)
		{
			const contact_solver_point* sp = cc->points + p.idx[i];
			double n = sp->acc[0] + x[3 * i];
			held = held && in_disk(cc->friction, n, sp->acc[1] + x[3 * i + 1], sp->acc[2] + x[3 * i + 2]);
			share[i] = n > 0.0 ? n : 0.0;
			load += share[i];
		}
		for (int i = 0; i < p.count && load > 0.0; ++i)
		{
			share[i] /= load;
		}
	}
	for (int i = 0; i < p.count && !held; ++i)
	{
		const contact_solver_point* sp = cc->points + p.idx[i];
		if (!in_disk(cc->friction, sp->acc[0] + x[3 * i], sp->acc[1] + x[3 * i + 1], sp->acc[2] + x[3 * i + 2]))
		{
			return false;
		}
	}
	for (int i = 0; i < p.count; ++i)
	{
		contact_solver_point* sp = cc->points + p.idx[i];
		for (int t = 0; t < 3; ++t)
		{
			sp->acc[t] += x[3 * i + t];
		}
	}
	patch_apply(cc, a, b, &p, x, true, 1.0 / hx);
	return true;
}

// Rounding of the coordinates of a metre-sized scene, m: a manifold whose points all moved less than this
// tangentially in the substep and hold no friction yet needs none (see friction_idle).
#define IDLE_MOTION 1e-14

// Whether a manifold takes no friction in this substep: it holds none yet and each of its pushing points
// moved (position pass) or moves over hx (velocity pass, speed * hx) less than IDLE_MOTION tangentially.
// The resting case, where the friction blocks would solve for rounding (in a resting stack the motions are
// 1e-16 m); a tangential load this skips would have to be below IDLE_MOTION / hx^2 of acceleration,
// 6e-7 m/s^2 at hx = 1/8 ms.
static bool friction_idle(const contact_constraint* cc, const side* a, const side* b, bool velocities, double hx)
{
	for (int i = 0; i < cc->point_count; ++i)
	{
		const contact_solver_point* sp = cc->points + i;
		if (!(sp->acc[0] > 0.0))
		{
			continue;
		}
		if (sp->acc[1] != 0.0 || sp->acc[2] != 0.0)
		{
			return false;
		}
		point_now m = measure(cc, sp, a, b);
		sn_vec3 d;
		if (velocities)
		{
			sn_vec3 v = relative_velocity(a, b, &m);
			d = sn_scale(hx, sn_mul_add(v, -sn_dot(v, cc->normal), cc->normal));
		}
		else
		{
			d = tangential_motion(cc, sp, a, b, &m);
		}
		if (!(sn_length(d) <= IDLE_MOTION))
		{
			return false;
		}
	}
	return true;
}

void xpbd_contacts_position_sweep(sn_world* world, double hx, bool backward)
{
	contact_solver* cs = &world->contact_solver;
	for (int it = 0; it < cs->count; ++it)
	{
		contact_constraint* cc = cs->constraints + (backward ? cs->count - 1 - it : it);
		if (!owned(cc))
		{
			continue;
		}
		side a, b;
		side_make(world, cc, false, &a);
		side_make(world, cc, true, &b);
		const int n = cc->point_count;
		// The normals, then static friction (the friction bounds take the normals' multipliers), in both
		// sweeps; point by point in the sweep's order where a block does not apply.
		if (n < 2 || cc->soft || !normal_block(cc, &a, &b, hx))
		{
			for (int k = 0; k < n; ++k)
			{
				normal_correction(cc, cc->points + (backward ? n - 1 - k : k), &a, &b, hx);
			}
		}
		if (!(cc->friction > 0.0) || friction_idle(cc, &a, &b, false, hx) || stick_block(cc, &a, &b, hx))
		{
			continue;
		}
		for (int k = 0; k < n; ++k)
		{
			static_friction(cc, cc->points + (backward ? n - 1 - k : k), &a, &b, hx);
		}
	}
}

// ---- velocity pass ----------------------------------------------------------------------------------------

// The normal speed a rigid point is brought to: -e times its approach speed if it approached faster than
// the threshold, else 0.
static double rest_speed(const contact_constraint* cc, const contact_solver_point* sp, double threshold)
{
	return sp->vn0 < -threshold ? -cc->restitution * sp->vn0 : 0.0;
}

// The normal impulses of a rigid manifold's pushing points as one block: the substep's totals x_i =
// lambda_i / hx + P_i >= 0 with each normal speed at or above its target, equal where x_i > 0 (the
// per-point rule of velocity_normal, for all of them at once). pn: each point's P so far (updated).
static bool velocity_block(contact_constraint* cc, side* a, side* b, double threshold, double inv_hx, double* pn)
{
	patch p;
	patch_points(cc, a, b, true, &p);
	if (p.count < 2)
	{
		return false;
	}
	patch_rows(cc, a, b, false, &p);
	double rhs[MAX_POINTS], x[MAX_POINTS];
	for (int i = 0; i < p.count; ++i)
	{
		const contact_solver_point* sp = cc->points + p.idx[i];
		rhs[i] = sn_dot(cc->normal, relative_velocity(a, b, p.m + i)) - rest_speed(cc, sp, threshold);
		for (int j = 0; j < p.count; ++j)
		{
			int q = p.idx[j];
			rhs[i] -= p.k[i][j] * (cc->points[q].acc[0] * inv_hx + pn[q]);
		}
	}
	if (!patch_lcp(&p, rhs, x))
	{
		return false;
	}
	for (int i = 0; i < p.count; ++i)
	{
		int q = p.idx[i];
		x[i] -= cc->points[q].acc[0] * inv_hx + pn[q];
		pn[q] += x[i];
	}
	patch_apply(cc, a, b, &p, x, false, 1.0);
	return true;
}

// The normal impulse of one pushing point: restitution or rest (rigid), the dashpot (soft); the substep's
// impulse stays >= 0.
static double velocity_normal(contact_constraint* cc, contact_solver_point* sp, side* a, side* b, const point_now* m,
							  double hx, double threshold)
{
	const sn_vec3 n = cc->normal;
	double wn = side_w(a, m->ra, n) + side_w(b, m->rb, n);
	if (!(wn > 0.0))
	{
		return 0.0;
	}
	double vn = sn_dot(n, relative_velocity(a, b, m));
	double pn;
	if (cc->soft)
	{
		double at, dc;
		bool ok = soft_xpbd_for(cc->softness, wn, hx, &at, &dc);
		pn = ok && !isinf(dc) ? -vn / (wn + dc) : 0.0;
	}
	else
	{
		pn = (rest_speed(cc, sp, threshold) - vn) / wn;
	}
	double floor = -sp->acc[0] / hx;
	pn = pn > floor ? pn : floor;
	if (pn != 0.0)
	{
		sn_vec3 impulse = sn_scale(pn, n);
		side_push(b, m->rb, impulse);
		side_push(a, m->ra, sn_neg(impulse));
		account(cc, sp, impulse);
	}
	return pn;
}

// The tangential velocity of a rigid manifold's pushing points brought to zero together with their normal
// speeds (at their targets), as one block, if every point's friction over the substep, lambda_t / hx + P_t,
// stays within mu lambda_n / hx and its normal total >= 0: the friction of the velocity pass without the
// tipping a point-by-point friction impulse below the centre of mass leaves. False (nothing applied)
// otherwise.
static bool stick_velocity(contact_constraint* cc, side* a, side* b, double threshold, double inv_hx, const double* pn)
{
	patch p;
	patch_points(cc, a, b, true, &p);
	if (p.count < 2)
	{
		return false;
	}
	patch_rows(cc, a, b, true, &p);
	double rhs[MAX_ROWS], x[MAX_ROWS], at[MAX_POINTS] = { 0.0 };
	for (int i = 0; i < p.count; ++i)
	{
		const contact_solver_point* sp = cc->points + p.idx[i];
		sn_vec3 v = relative_velocity(a, b, p.m + i);
		rhs[3 * i] = rest_speed(cc, sp, threshold) - sn_dot(cc->normal, v);
		rhs[3 * i + 1] = -sn_dot(cc->tangent[0], v);
		rhs[3 * i + 2] = -sn_dot(cc->tangent[1], v);
	}
	double share[MAX_POINTS];
	for (int i = 0; i < p.count; ++i)
	{
		share[i] = cc->points[p.idx[i]].acc[0] / p.load;
	}
	if (!patch_solve(&p, share, at, rhs, x))
	{
		return false;
	}
	for (int i = 0; i < p.count; ++i)
	{
		const contact_solver_point* sp = cc->points + p.idx[i];
		double normal = (sp->acc[0] * inv_hx + pn[p.idx[i]] + x[3 * i]) >= 0.0 ? sp->acc[0] * inv_hx : -1.0;
		if (!in_disk(cc->friction, normal, sp->acc[1] * inv_hx + x[3 * i + 1], sp->acc[2] * inv_hx + x[3 * i + 2]))
		{
			return false;
		}
	}
	patch_apply(cc, a, b, &p, x, false, 1.0);
	return true;
}

// Dynamic friction of one pushing point against its tangential velocity, at most the impulse budget.
static void dynamic_friction(contact_constraint* cc, contact_solver_point* sp, side* a, side* b, const point_now* m,
							 double budget)
{
	const sn_vec3 n = cc->normal;
	sn_vec3 v = relative_velocity(a, b, m);
	sn_vec3 vt = sn_mul_add(v, -sn_dot(v, n), n);
	double len = sn_length(vt);
	if (!(len > 0.0) || !(budget > 0.0))
	{
		return;
	}
	sn_vec3 d = sn_scale(-1.0 / len, vt);
	double wt = side_w(a, m->ra, d) + side_w(b, m->rb, d);
	if (!(wt > 0.0))
	{
		return;
	}
	sn_vec3 impulse = sn_scale(fmin(budget, len / wt), d);
	side_push(b, m->rb, impulse);
	side_push(a, m->ra, sn_neg(impulse));
	account(cc, sp, impulse);
}

// The share of the manifold's remaining friction each point may apply in the velocity pass (impulses, N*s):
// what its disk has left, mu lambda_n - |lambda_t| (over hx), less the points' overshoot in proportion. A
// point's normal multiplier can end the position pass below the one its static friction was bounded by
// (the backward sweep shares the load anew), so a point may hold more than its own disk; the manifold as
// a whole never applies more than mu times its normal multipliers.
static void friction_budgets(const contact_constraint* cc, double inv_hx, double* budget)
{
	double slack = 0.0, over = 0.0;
	for (int k = 0; k < cc->point_count; ++k)
	{
		const contact_solver_point* sp = cc->points + k;
		double left = cc->friction * sp->acc[0] - hypot(sp->acc[1], sp->acc[2]);
		budget[k] = left > 0.0 ? left : 0.0;
		slack += budget[k];
		over += left < 0.0 ? -left : 0.0;
	}
	double scale = slack > over ? (slack - over) / slack * inv_hx : 0.0;
	for (int k = 0; k < cc->point_count; ++k)
	{
		budget[k] *= scale;
	}
}

void xpbd_contacts_velocity_pass(sn_world* world, double hx)
{
	contact_solver* cs = &world->contact_solver;
	const double threshold = world->def.contact.restitution_threshold;
	const double inv_hx = 1.0 / hx;
	for (int i = 0; i < cs->count; ++i)
	{
		contact_constraint* cc = cs->constraints + i;
		if (!owned(cc))
		{
			continue;
		}
		side a, b;
		side_make(world, cc, false, &a);
		side_make(world, cc, true, &b);
		double pn[MAX_POINTS] = { 0.0 };
		bool blocked = !cc->soft && velocity_block(cc, &a, &b, threshold, inv_hx, pn);
		bool idle = !(cc->friction > 0.0) || friction_idle(cc, &a, &b, true, hx);
		if (blocked && (idle || stick_velocity(cc, &a, &b, threshold, inv_hx, pn)))
		{
			continue;
		}
		double budget[MAX_POINTS];
		friction_budgets(cc, inv_hx, budget);
		for (int k = 0; k < cc->point_count; ++k)
		{
			contact_solver_point* sp = cc->points + k;
			if (!(sp->acc[0] > 0.0))
			{
				continue; // not in contact in this substep
			}
			point_now m = measure(cc, sp, &a, &b);
			if (!blocked)
			{
				pn[k] = velocity_normal(cc, sp, &a, &b, &m, hx, threshold);
			}
			if (cc->friction > 0.0)
			{
				dynamic_friction(cc, sp, &a, &b, &m, budget[k]);
			}
		}
	}
}
