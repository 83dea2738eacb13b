// Two lanes of doubles: the same arithmetic on two independent sets of operands at once (two links of an
// articulation, two right-hand sides of an impulse pass), with the GCC and Clang vector extensions: SSE2
// registers on x86-64, plain scalar code on targets without vectors.
//
// Every operation here acts on each lane exactly as the scalar operation of math.h and spatial.h it is
// named after, in the same order (a + b, a * b and a - b per lane are the IEEE operations on that lane's
// doubles, and no fused multiply-add is formed under -ffp-contract=off). Code written with these types
// therefore gives the bits of the scalar code it replaces, lane by lane: it only lets the compiler use
// both halves of a vector register.
#ifndef SINEW_LANES_H
#define SINEW_LANES_H

#include "math/spatial.h"

#include <string.h>

// Two doubles; aligned like a double, so that it can sit anywhere a double can (unaligned vector moves).
typedef double lane2 __attribute__((vector_size(16), aligned(8)));

// What comparing two lane2 gives: per lane all ones (true) or zero (false).
typedef long long lane2_mask __attribute__((vector_size(16)));

static inline lane2 lane2_load(const double* p)
{
	lane2 v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void lane2_store(double* p, lane2 v)
{
	memcpy(p, &v, sizeof(v));
}

static inline lane2 lane2_splat(double x)
{
	lane2 v = { x, x };
	return v;
}

static inline lane2 lane2_pair(double a, double b)
{
	lane2 v = { a, b };
	return v;
}

// A 3-vector per lane, by components.
typedef struct vec3x2
{
	lane2 x, y, z;
} vec3x2;

static inline vec3x2 vec3x2_pair(sn_vec3 a, sn_vec3 b)
{
	vec3x2 r = { { a.x, b.x }, { a.y, b.y }, { a.z, b.z } };
	return r;
}

static inline vec3x2 vec3x2_splat(sn_vec3 a)
{
	vec3x2 r = { { a.x, a.x }, { a.y, a.y }, { a.z, a.z } };
	return r;
}

static inline sn_vec3 vec3x2_lane(vec3x2 v, int r)
{
	return sn_v3(v.x[r], v.y[r], v.z[r]);
}

static inline vec3x2 vec3x2_add(vec3x2 a, vec3x2 b)
{
	vec3x2 r = { a.x + b.x, a.y + b.y, a.z + b.z };
	return r;
}

static inline vec3x2 vec3x2_sub(vec3x2 a, vec3x2 b)
{
	vec3x2 r = { a.x - b.x, a.y - b.y, a.z - b.z };
	return r;
}

// s a (sn_scale)
static inline vec3x2 vec3x2_scale(lane2 s, vec3x2 a)
{
	vec3x2 r = { s * a.x, s * a.y, s * a.z };
	return r;
}

// a + s b (sn_mul_add)
static inline vec3x2 vec3x2_mul_add(vec3x2 a, lane2 s, vec3x2 b)
{
	vec3x2 r = { a.x + s * b.x, a.y + s * b.y, a.z + s * b.z };
	return r;
}

static inline lane2 vec3x2_dot(vec3x2 a, vec3x2 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline vec3x2 vec3x2_cross(vec3x2 a, vec3x2 b)
{
	vec3x2 r = { a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
	return r;
}

// A symmetric 3x3 matrix per lane.
typedef struct sym33x2
{
	lane2 xx, yy, zz, xy, xz, yz;
} sym33x2;

static inline sym33x2 sym33x2_pair(const sym33* a, const sym33* b)
{
	sym33x2 r = { { a->xx, b->xx }, { a->yy, b->yy }, { a->zz, b->zz },
				  { a->xy, b->xy }, { a->xz, b->xz }, { a->yz, b->yz } };
	return r;
}

// sym33_mul
static inline vec3x2 sym33x2_mul(const sym33x2* s, vec3x2 v)
{
	vec3x2 r = { s->xx * v.x + s->xy * v.y + s->xz * v.z, s->xy * v.x + s->yy * v.y + s->yz * v.z,
				 s->xz * v.x + s->yz * v.y + s->zz * v.z };
	return r;
}

// A 3x3 matrix per lane, by columns.
typedef struct mat33x2
{
	vec3x2 cx, cy, cz;
} mat33x2;

static inline mat33x2 mat33x2_pair(const sn_mat33* a, const sn_mat33* b)
{
	mat33x2 r = { vec3x2_pair(a->cx, b->cx), vec3x2_pair(a->cy, b->cy), vec3x2_pair(a->cz, b->cz) };
	return r;
}

// sn_mat33_mul_v
static inline vec3x2 mat33x2_mul_v(const mat33x2* m, vec3x2 v)
{
	vec3x2 r = { m->cx.x * v.x + m->cy.x * v.y + m->cz.x * v.z, m->cx.y * v.x + m->cy.y * v.y + m->cz.y * v.z,
				 m->cx.z * v.x + m->cy.z * v.y + m->cz.z * v.z };
	return r;
}

// R S R^T (sym33_rotate) for a rotation R and a symmetric S.
static inline sym33x2 sym33x2_rotate(const mat33x2* r, const sym33x2* s)
{
	vec3x2 rs0 =
		vec3x2_add(vec3x2_add(vec3x2_scale(s->xx, r->cx), vec3x2_scale(s->xy, r->cy)), vec3x2_scale(s->xz, r->cz));
	vec3x2 rs1 =
		vec3x2_add(vec3x2_add(vec3x2_scale(s->xy, r->cx), vec3x2_scale(s->yy, r->cy)), vec3x2_scale(s->yz, r->cz));
	vec3x2 rs2 =
		vec3x2_add(vec3x2_add(vec3x2_scale(s->xz, r->cx), vec3x2_scale(s->yz, r->cy)), vec3x2_scale(s->zz, r->cz));
	sym33x2 o;
	o.xx = rs0.x * r->cx.x + rs1.x * r->cy.x + rs2.x * r->cz.x;
	o.yy = rs0.y * r->cx.y + rs1.y * r->cy.y + rs2.y * r->cz.y;
	o.zz = rs0.z * r->cx.z + rs1.z * r->cy.z + rs2.z * r->cz.z;
	o.xy = rs0.x * r->cx.y + rs1.x * r->cy.y + rs2.x * r->cz.y;
	o.xz = rs0.x * r->cx.z + rs1.x * r->cy.z + rs2.x * r->cz.z;
	o.yz = rs0.y * r->cx.z + rs1.y * r->cy.z + rs2.y * r->cz.z;
	return o;
}

// R D R^T for a diagonal D = diag(dxx, dyy, dzz) (rotate_diagonal of artic/dynamics.c).
static inline sym33x2 sym33x2_rotate_diagonal(const mat33x2* r, lane2 dxx, lane2 dyy, lane2 dzz)
{
	vec3x2 t0 = vec3x2_scale(dxx, r->cx), t1 = vec3x2_scale(dyy, r->cy), t2 = vec3x2_scale(dzz, r->cz);
	sym33x2 o;
	o.xx = t0.x * r->cx.x + t1.x * r->cy.x + t2.x * r->cz.x;
	o.yy = t0.y * r->cx.y + t1.y * r->cy.y + t2.y * r->cz.y;
	o.zz = t0.z * r->cx.z + t1.z * r->cy.z + t2.z * r->cz.z;
	o.xy = t0.x * r->cx.y + t1.x * r->cy.y + t2.x * r->cz.y;
	o.xz = t0.x * r->cx.z + t1.x * r->cy.z + t2.x * r->cz.z;
	o.yz = t0.y * r->cx.z + t1.y * r->cy.z + t2.y * r->cz.z;
	return o;
}

static inline void sym33x2_store(const sym33x2* s, sym33* a, sym33* b)
{
	b->xx = s->xx[1];
	b->yy = s->yy[1];
	b->zz = s->zz[1];
	b->xy = s->xy[1];
	b->xz = s->xz[1];
	b->yz = s->yz[1];
	a->xx = s->xx[0];
	a->yy = s->yy[0];
	a->zz = s->zz[0];
	a->xy = s->xy[0];
	a->xz = s->xz[0];
	a->yz = s->yz[0];
}

// A spatial vector per lane.
typedef struct sv6x2
{
	vec3x2 w, v;
} sv6x2;

static inline sv6x2 sv6x2_pair(sv6 a, sv6 b)
{
	sv6x2 r = { vec3x2_pair(a.w, b.w), vec3x2_pair(a.v, b.v) };
	return r;
}

static inline sv6 sv6x2_lane(const sv6x2* z, int r)
{
	return sv6_make(vec3x2_lane(z->w, r), vec3x2_lane(z->v, r));
}

static inline void sv6x2_set_lane(sv6x2* z, int r, sv6 v)
{
	z->w.x[r] = v.w.x;
	z->w.y[r] = v.w.y;
	z->w.z[r] = v.w.z;
	z->v.x[r] = v.v.x;
	z->v.y[r] = v.v.y;
	z->v.z[r] = v.v.z;
}

static inline sv6x2 sv6x2_add(sv6x2 a, sv6x2 b)
{
	sv6x2 r = { vec3x2_add(a.w, b.w), vec3x2_add(a.v, b.v) };
	return r;
}

// s . z in each lane for one spatial vector s (sv6_dot(s, z)).
static inline lane2 sv6x2_dot_splat(sv6 s, const sv6x2* z)
{
	return vec3x2_dot(vec3x2_splat(s.w), z->w) + vec3x2_dot(vec3x2_splat(s.v), z->v);
}

// z + x s in each lane for one spatial vector s (sv6_mul_add(z, x, s) with a factor per lane).
static inline void sv6x2_mul_add_splat(sv6x2* z, lane2 x, sv6 s)
{
	z->w = vec3x2_mul_add(z->w, x, vec3x2_splat(s.w));
	z->v = vec3x2_mul_add(z->v, x, vec3x2_splat(s.v));
}

#endif
