// Mass properties: mass, centre of mass and inertia about it, for a uniform density rho.
//
// Closed forms (each about the shape's own centre, which is its centre of mass):
//   sphere    m = rho 4/3 pi r^3, I = 2/5 m r^2
//   box       m = rho 8 hx hy hz, Ixx = m (hy^2 + hz^2) / 3 (and cyclically)
//   cylinder  m = rho pi r^2 2h, Izz = m r^2 / 2, Ixx = Iyy = m (3 r^2 + (2h)^2) / 12
//   capsule   a cylinder (mc = rho pi r^2 2h) and two hemispheres (mh = rho 2/3 pi r^3 each). A
//             hemisphere's centroid is 3r/8 from its flat face; about a diameter of that face its inertia
//             is 2/5 mh r^2, so about its own centroid (parallel axis) (2/5 - 9/64) mh r^2 =
//             83/320 mh r^2, and about the capsule's centre, at distance h + 3r/8,
//             83/320 mh r^2 + mh (h + 3r/8)^2. About the axis: 2/5 mh r^2 each.
//             Izz = mc r^2/2 + 4/5 mh r^2, Ixx = mc (r^2/4 + (2h)^2/12) + 2 [83/320 mh r^2 + mh (h + 3r/8)^2].
//
// Hulls by the divergence theorem (Mirtich, "Fast and Accurate Computation of Polyhedral Mass
// Properties", JGT 1996; in the compact form of Eberly, "Polyhedral Mass Properties (Revisited)", 2002):
// for a monomial f, pick F with div F = f, so that int_V f dV = sum over faces of int_T F . n dA. On a
// triangle p(u, v) = p0 + u (p1 - p0) + v (p2 - p0), n dA = d du dv with d = (p1 - p0) x (p2 - p0), and
// the integrals of monomials of a linear function over the unit triangle are symmetric sums:
//   int x = f1/6, int x^2 = f2/12, int x^3 = f3/20, int x^2 y = (y0 g0 + y1 g1 + y2 g2)/60,
// with f1 = x0 + x1 + x2, f2 = the six degree-2 monomials, f3 = the ten degree-3 monomials,
// gi = f2 + xi (f1 + xi). With F = (x, 0, 0), (x^2/2, 0, 0), (x^3/3, 0, 0) and (x^2 y/2, 0, 0) (and
// cyclically) this gives the volume, the first moments, the second moments and the products. Faces are
// fanned into triangles; coordinates are taken relative to the hull's centroid so that the second
// moments do not cancel against large offsets. Then I_xx = rho int (y^2 + z^2), I_xy = -rho int x y, moved
// to the centre of mass by the parallel-axis theorem.
//
// Compounds: m = sum mi, c = sum mi ci / m with ci the part's centre placed by its pose, and
// I = sum [Ri Ii Ri^T + mi (|di|^2 E - di di^T)] with di = ci - c.
#include "collide/mass.h"

#include <math.h>
#include <string.h>

static collide_mass mass_zero(void)
{
	collide_mass m;
	memset(&m, 0, sizeof(m));
	return m;
}

static void subexpressions(double w0, double w1, double w2, double* f1, double* f2, double* f3, double* g0, double* g1,
						   double* g2)
{
	double t0 = w0 + w1;
	*f1 = t0 + w2;
	double t1 = w0 * w0;
	double t2 = t1 + w1 * t0;
	*f2 = t2 + w2 * *f1;
	*f3 = w0 * t1 + w1 * t2 + w2 * *f2;
	*g0 = *f2 + w0 * (*f1 + w0);
	*g1 = *f2 + w1 * (*f1 + w1);
	*g2 = *f2 + w2 * (*f1 + w2);
}

static collide_mass hull_mass(const collide_hull* hull, double rho)
{
	sn_vec3 ref = hull->centroid;
	double in[10] = { 0 };
	for (int f = 0; f < hull->face_count; ++f)
	{
		const collide_hull_face* face = &hull->faces[f];
		sn_vec3 p0 = sn_sub(hull->vertices[hull->half_edges[face->first].origin], ref);
		for (int k = 1; k + 1 < face->count; ++k)
		{
			sn_vec3 p1 = sn_sub(hull->vertices[hull->half_edges[face->first + k].origin], ref);
			sn_vec3 p2 = sn_sub(hull->vertices[hull->half_edges[face->first + k + 1].origin], ref);
			sn_vec3 d = sn_cross(sn_sub(p1, p0), sn_sub(p2, p0));
			double f1x, f2x, f3x, g0x, g1x, g2x;
			double f1y, f2y, f3y, g0y, g1y, g2y;
			double f1z, f2z, f3z, g0z, g1z, g2z;
			subexpressions(p0.x, p1.x, p2.x, &f1x, &f2x, &f3x, &g0x, &g1x, &g2x);
			subexpressions(p0.y, p1.y, p2.y, &f1y, &f2y, &f3y, &g0y, &g1y, &g2y);
			subexpressions(p0.z, p1.z, p2.z, &f1z, &f2z, &f3z, &g0z, &g1z, &g2z);
			in[0] += d.x * f1x;
			in[1] += d.x * f2x;
			in[2] += d.y * f2y;
			in[3] += d.z * f2z;
			in[4] += d.x * f3x;
			in[5] += d.y * f3y;
			in[6] += d.z * f3z;
			in[7] += d.x * (p0.y * g0x + p1.y * g1x + p2.y * g2x);
			in[8] += d.y * (p0.z * g0y + p1.z * g1y + p2.z * g2y);
			in[9] += d.z * (p0.x * g0z + p1.x * g1z + p2.x * g2z);
		}
	}
	in[0] /= 6.0;
	in[1] /= 24.0;
	in[2] /= 24.0;
	in[3] /= 24.0;
	in[4] /= 60.0;
	in[5] /= 60.0;
	in[6] /= 60.0;
	in[7] /= 120.0;
	in[8] /= 120.0;
	in[9] /= 120.0;
	double volume = in[0];
	collide_mass m;
	m.mass = rho * volume;
	sn_vec3 c = sn_v3(in[1] / volume, in[2] / volume, in[3] / volume);
	// Second moments about the reference, then about the centre of mass.
	double xx = rho * in[4] - m.mass * c.x * c.x;
	double yy = rho * in[5] - m.mass * c.y * c.y;
	double zz = rho * in[6] - m.mass * c.z * c.z;
	double xy = rho * in[7] - m.mass * c.x * c.y;
	double yz = rho * in[8] - m.mass * c.y * c.z;
	double zx = rho * in[9] - m.mass * c.z * c.x;
	m.inertia.cx = sn_v3(yy + zz, -xy, -zx);
	m.inertia.cy = sn_v3(-xy, zz + xx, -yz);
	m.inertia.cz = sn_v3(-zx, -yz, xx + yy);
	m.center = sn_add(ref, c);
	return m;
}

sn_error collide_mass_compute(const collide_shape* shape, double density, collide_mass* out, char* detail, size_t cap)
{
	if (out == NULL)
	{
		collide_detail(detail, cap, "mass: out is NULL");
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_error err = collide_shape_check(shape, detail, cap);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (!isfinite(density))
	{
		collide_detail(detail, cap, "density is %g (must be finite)", density);
		return SN_ERR_NOT_FINITE;
	}
	if (density < 0.0)
	{
		collide_detail(detail, cap, "density is %g kg/m^3 (must be positive)", density);
		return SN_ERR_NEGATIVE_VALUE;
	}
	if (density == 0.0)
	{
		collide_detail(detail, cap, "density is 0 (must be positive)");
		return SN_ERR_INVALID_ARGUMENT;
	}
	collide_mass m = mass_zero();
	switch (shape->type)
	{
		case COLLIDE_SPHERE:
		{
			double r = shape->sphere.radius;
			m.mass = density * (4.0 / 3.0) * SN_PI * r * r * r;
			double i = 0.4 * m.mass * r * r;
			m.inertia = sn_mat33_diag(i, i, i);
			break;
		}
		case COLLIDE_CAPSULE:
		{
			double r = shape->capsule.radius;
			double h = shape->capsule.half_length;
			double mc = density * SN_PI * r * r * 2.0 * h;
			double mh = density * (2.0 / 3.0) * SN_PI * r * r * r;
			double arm = h + 0.375 * r;
			double izz = 0.5 * mc * r * r + 0.8 * mh * r * r;
			double ixx =
				mc * (0.25 * r * r + (2.0 * h) * (2.0 * h) / 12.0) + 2.0 * (83.0 / 320.0 * mh * r * r + mh * arm * arm);
			m.mass = mc + 2.0 * mh;
			m.inertia = sn_mat33_diag(ixx, ixx, izz);
			break;
		}
		case COLLIDE_BOX:
		{
			sn_vec3 e = shape->box.half_extents;
			m.mass = density * 8.0 * e.x * e.y * e.z;
			m.inertia = sn_mat33_diag(m.mass * (e.y * e.y + e.z * e.z) / 3.0, m.mass * (e.z * e.z + e.x * e.x) / 3.0,
									  m.mass * (e.x * e.x + e.y * e.y) / 3.0);
			break;
		}
		case COLLIDE_CYLINDER:
		{
			double r = shape->cylinder.radius;
			double h = shape->cylinder.half_height;
			m.mass = density * SN_PI * r * r * 2.0 * h;
			double ixx = m.mass * (3.0 * r * r + 4.0 * h * h) / 12.0;
			m.inertia = sn_mat33_diag(ixx, ixx, 0.5 * m.mass * r * r);
			break;
		}
		case COLLIDE_HULL:
			m = hull_mass(shape->hull, density);
			break;
		case COLLIDE_MESH:
		case COLLIDE_PLANE:
		case COLLIDE_SHAPE_TYPE_COUNT:
			collide_detail(detail, cap, "a %s is static geometry and has no mass (use hulls for dynamic bodies)",
						   collide_shape_type_name(shape->type));
			return SN_ERR_UNSUPPORTED;
	}
	if (!isfinite(m.mass) || !(m.mass > 0.0) || !isfinite(m.inertia.cx.x + m.inertia.cy.y + m.inertia.cz.z))
	{
		collide_detail(detail, cap, "mass of the %s at density %g is %g kg (not finite and positive)",
					   collide_shape_type_name(shape->type), density, m.mass);
		return SN_ERR_NOT_FINITE;
	}
	*out = m;
	return SN_ERR_OK;
}

collide_mass collide_mass_combine(const collide_mass* parts, const sn_transform* poses, int count)
{
	collide_mass total = mass_zero();
	sn_vec3 moment = sn_v3(0, 0, 0);
	for (int i = 0; i < count; ++i)
	{
		if (parts[i].mass > 0.0)
		{
			total.mass += parts[i].mass;
			moment = sn_mul_add(moment, parts[i].mass, sn_transform_point(poses[i], parts[i].center));
		}
	}
	if (!(total.mass > 0.0))
	{
		return mass_zero();
	}
	total.center = sn_scale(1.0 / total.mass, moment);
	for (int i = 0; i < count; ++i)
	{
		if (!(parts[i].mass > 0.0))
		{
			continue;
		}
		sn_mat33 rotated = sn_mat33_rotate_tensor(poses[i].q, parts[i].inertia);
		sn_vec3 d = sn_sub(sn_transform_point(poses[i], parts[i].center), total.center);
		double dd = sn_dot(d, d);
		double mi = parts[i].mass;
		sn_mat33 shift = { { mi * (dd - d.x * d.x), -mi * d.x * d.y, -mi * d.x * d.z },
						   { -mi * d.y * d.x, mi * (dd - d.y * d.y), -mi * d.y * d.z },
						   { -mi * d.z * d.x, -mi * d.z * d.y, mi * (dd - d.z * d.z) } };
		total.inertia.cx = sn_add(total.inertia.cx, sn_add(rotated.cx, shift.cx));
		total.inertia.cy = sn_add(total.inertia.cy, sn_add(rotated.cy, shift.cy));
		total.inertia.cz = sn_add(total.inertia.cz, sn_add(rotated.cz, shift.cz));
	}
	return total;
}
