// Mass properties (mass.c) against closed forms and independent integrals.
#include "collide_support.h"

#include "collide/hull.h"
#include "collide/mass.h"

static collide_mass mass_of(collide_shape s, double density)
{
	collide_mass m;
	char detail[256] = "";
	sn_error err = collide_mass_compute(&s, density, &m, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		fail_msg("mass failed: %s (%s)", sn_error_name(err), detail);
	}
	return m;
}

// Relative closeness of two inertia tensors: the largest entry difference over the largest entry.
static double tensor_error(sn_mat33 a, sn_mat33 b)
{
	const double* x = &a.cx.x;
	const double* y = &b.cx.x;
	double diff = 0.0, size = 0.0;
	for (int i = 0; i < 9; ++i)
	{
		diff = fmax(diff, fabs(x[i] - y[i]));
		size = fmax(size, fabs(y[i]));
	}
	return diff / size;
}

static collide_hull* box_hull(sn_memory* mem, sn_vec3 c, sn_vec3 h, sn_quat q)
{
	sn_vec3 p[8];
	for (int i = 0; i < 8; ++i)
	{
		sn_vec3 local = sn_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
		p[i] = sn_add(c, sn_rotate(q, local));
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(mem, p, 8, &hull, NULL, 0));
	return hull;
}

// A hull of a box's corners, placed off the origin and rotated, has the box's mass, centre and rotated
// inertia to 1e-12 relative (the divergence theorem is exact on a polyhedron; what is left is rounding of
// a few hundred operations).
static void test_hull_equals_box(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	sn_vec3 h = sn_v3(0.3, 0.2, 0.1);
	sn_vec3 c = sn_v3(1.0, -2.0, 3.0);
	sn_quat q = sn_quat_normalize((sn_quat){ 0.1, 0.2, -0.3, 0.9 });
	collide_hull* hull = box_hull(&mem, c, h, q);
	collide_mass mh = mass_of(collide_make_hull(hull), 750.0);
	collide_mass mb = mass_of(collide_make_box(h), 750.0);
	assert_near(mh.mass / mb.mass, 1.0, 1e-12, "hull of a box's corners = box");
	assert_near(mh.center.x, c.x, 1e-12, "centre");
	assert_near(mh.center.y, c.y, 1e-12, "centre");
	assert_near(mh.center.z, c.z, 1e-12, "centre");
	double e = tensor_error(mh.inertia, sn_mat33_rotate_tensor(q, mb.inertia));
	report_measure("hull-of-box inertia relative error", e);
	assert_below(e, 1e-12, "hull of a box's corners = box, rotated");
	hull_destroy(&mem, hull);
}

// The unit right tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1): volume 1/6, centroid (1/4, 1/4, 1/4),
// int x^2 dV = 1/60, int x y dV = 1/120 (by direct integration), so about the centroid
// Ixx = rho (2/60 - 2 (1/6)(1/16)) and Ixy = -rho (1/120 - (1/6)(1/16)).
static void test_hull_tetrahedron(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	sn_vec3 p[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, p, 4, &hull, NULL, 0));
	collide_mass m = mass_of(collide_make_hull(hull), 2.0);
	assert_near(m.mass, 2.0 / 6.0, 1e-15, "volume 1/6");
	assert_near(m.center.x, 0.25, 1e-15, "centroid");
	double v = 1.0 / 6.0;
	double ixx = 2.0 * (2.0 / 60.0 - 2.0 * v / 16.0);
	double ixy = -2.0 * (1.0 / 120.0 - v / 16.0);
	assert_near(m.inertia.cx.x, ixx, 1e-15, "Ixx of the tetrahedron");
	assert_near(m.inertia.cy.x, ixy, 1e-15, "Ixy of the tetrahedron");
	assert_near(m.inertia.cz.y, ixy, 1e-15, "Iyz of the tetrahedron (symmetric)");
	hull_destroy(&mem, hull);
}

// A capsule against a direct integration over slices: discs of radius rho(z) (r on the cylinder,
// sqrt(r^2 - (|z| - h)^2) on the caps): dm = rho_d pi rho^2 dz, dIzz = dm rho^2 / 2,
// dIxx = dm (rho^2/4 + z^2). Simpson's rule with 20000 intervals per piece is exact to about 1e-13 for
// the cylinder and converges as h^4 on the smooth caps, so 1e-10 relative is the test's resolution.
static double simpson(double (*f)(double, const double*), const double* p, double a, double b, int n)
{
	double h = (b - a) / n, sum = f(a, p) + f(b, p);
	for (int i = 1; i < n; ++i)
	{
		sum += f(a + i * h, p) * (i % 2 ? 4.0 : 2.0);
	}
	return sum * h / 3.0;
}
static double slice_radius2(double z, const double* p)
{
	double r = p[0], h = p[1], t = fabs(z) - h;
	return t <= 0.0 ? r * r : fmax(0.0, r * r - t * t);
}
static double slice_mass(double z, const double* p)
{
	return SN_PI * slice_radius2(z, p);
}
static double slice_izz(double z, const double* p)
{
	double r2 = slice_radius2(z, p);
	return SN_PI * r2 * r2 / 2.0;
}
static double slice_ixx(double z, const double* p)
{
	double r2 = slice_radius2(z, p);
	return SN_PI * r2 * (r2 / 4.0 + z * z);
}

static void test_capsule_by_slices(void** state)
{
	(void)state;
	const double cases[3][2] = { { 0.1, 0.3 }, { 0.5, 0.05 }, { 0.2, 0.0 } };
	for (int c = 0; c < 3; ++c)
	{
		double p[2] = { cases[c][0], cases[c][1] };
		double r = p[0], h = p[1];
		double mass = 0.0, izz = 0.0, ixx = 0.0;
		double cuts[4] = { -h - r, -h, h, h + r };
		for (int k = 0; k < 3; ++k)
		{
			if (cuts[k + 1] > cuts[k])
			{
				mass += simpson(slice_mass, p, cuts[k], cuts[k + 1], 20000);
				izz += simpson(slice_izz, p, cuts[k], cuts[k + 1], 20000);
				ixx += simpson(slice_ixx, p, cuts[k], cuts[k + 1], 20000);
			}
		}
		collide_mass m = mass_of(collide_make_capsule(r, h), 1.0);
		assert_near(m.mass / mass, 1.0, 1e-10, "slices (Simpson's resolution)");
		assert_near(m.inertia.cz.z / izz, 1.0, 1e-10, "slices (Simpson's resolution)");
		assert_near(m.inertia.cx.x / ixx, 1.0, 1e-10, "slices (Simpson's resolution)");
		assert_near(m.inertia.cy.y, m.inertia.cx.x, 0.0, "symmetric about z");
	}
	// h = 0 is a sphere exactly.
	collide_mass s = mass_of(collide_make_sphere(0.2), 3.0), c = mass_of(collide_make_capsule(0.2, 0.0), 3.0);
	assert_near(c.mass / s.mass, 1.0, 1e-15, "a capsule of half-length 0 is a sphere");
	assert_near(c.inertia.cx.x / s.inertia.cx.x, 1.0, 1e-15, "a capsule of half-length 0 is a sphere");
}

// Closed forms, with the contact scenes' numbers: a 0.2 m cube of 1 kg has inertia m (2h)^2/6.
static void test_primitives(void** state)
{
	(void)state;
	collide_mass b = mass_of(collide_make_box(sn_v3(0.1, 0.1, 0.1)), 1000.0 / 8.0);
	assert_near(b.mass, 1.0, 1e-15, "0.008 m^3 at 125 kg/m^3");
	assert_near(b.inertia.cx.x, 1.0 * 0.04 / 6.0, 1e-17, "m (2h)^2 / 6");
	collide_mass s = mass_of(collide_make_sphere(0.1), 1.0 / (4.0 / 3.0 * SN_PI * 0.001));
	assert_near(s.mass, 1.0, 1e-14, "1 kg sphere");
	assert_near(s.inertia.cz.z, 0.4 * 0.01, 1e-16, "2/5 m r^2");
	collide_mass cy = mass_of(collide_make_cylinder(0.1, 0.2), 1000.0);
	double m = 1000.0 * SN_PI * 0.01 * 0.4;
	assert_near(cy.mass, m, 1e-12, "rho pi r^2 2h");
	assert_near(cy.inertia.cz.z, 0.5 * m * 0.01, 1e-14, "m r^2 / 2");
	assert_near(cy.inertia.cx.x, m * (3.0 * 0.01 + 0.16) / 12.0, 1e-14, "m (3 r^2 + (2h)^2) / 12");
}

// A hull of a 64-gon prism against its own closed form. A regular n-gon of circumradius R has area
// A = n/2 R^2 sin(2 pi/n) and polar second moment J = n R^4/12 sin(2 pi/n) (2 + cos(2 pi/n)) about its
// centre (a sum over its n triangles from the centre; J = a^4/6 for a square of side a, pi R^4/2 in the
// limit), the same second moment J/2 about every diameter. A prism of height H at density rho then has
// m = rho A H, Izz = rho H J and Ixx = Iyy = rho H (J/2 + A H^2/12). The divergence theorem is exact on a
// polyhedron: 1e-12 relative is the rounding of a few thousand operations. Against the cylinder it
// approaches, the inertia is short by the polygon's deficit (about (2 pi / n)^2 / 3 = 0.3 % at n = 64).
static void test_hull_prism(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	int n = 64;
	double r = 0.1, height = 0.4, rho = 1000.0;
	sn_vec3 p[128];
	for (int i = 0; i < n; ++i)
	{
		double a = 2.0 * SN_PI * i / n;
		p[2 * i] = sn_v3(r * cos(a), r * sin(a), -0.5 * height);
		p[2 * i + 1] = sn_v3(r * cos(a), r * sin(a), 0.5 * height);
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, p, 2 * n, &hull, NULL, 0));
	collide_mass mh = mass_of(collide_make_hull(hull), rho);
	double t = 2.0 * SN_PI / n;
	double area = 0.5 * n * r * r * sin(t);
	double polar = n * pow(r, 4) / 12.0 * sin(t) * (2.0 + cos(t));
	assert_near(mh.mass / (rho * area * height), 1.0, 1e-12, "prism volume");
	assert_near(mh.inertia.cz.z / (rho * height * polar), 1.0, 1e-12, "rho H J");
	double ixx = rho * height * (0.5 * polar + area * height * height / 12.0);
	assert_near(mh.inertia.cx.x / ixx, 1.0, 1e-12, "rho H (J/2 + A H^2/12)");
	assert_near(mh.inertia.cy.y / ixx, 1.0, 1e-12, "rho H (J/2 + A H^2/12)");
	assert_near(mh.inertia.cx.y / ixx, 0.0, 1e-12, "no product of inertia");
	assert_near(mh.center.z, 0.0, 1e-15, "symmetric");
	collide_mass mc = mass_of(collide_make_cylinder(r, 0.5 * height), rho);
	assert_near(mh.inertia.cz.z / mc.inertia.cz.z, 1.0, 4e-3, "the polygon's deficit against the cylinder");
	hull_destroy(&mem, hull);
}

// Compounds: two boxes side by side are one long box; a box and a rotated box about their common centre.
static void test_combine(void** state)
{
	(void)state;
	collide_mass half = mass_of(collide_make_box(sn_v3(0.25, 0.1, 0.2)), 800.0);
	collide_mass whole = mass_of(collide_make_box(sn_v3(0.5, 0.1, 0.2)), 800.0);
	collide_mass parts[2] = { half, half };
	sn_transform poses[2] = { pose_at(2.0 - 0.25, 1.0, 0.0), pose_at(2.0 + 0.25, 1.0, 0.0) };
	collide_mass c = collide_mass_combine(parts, poses, 2);
	assert_near(c.mass / whole.mass, 1.0, 1e-15, "mass adds");
	assert_near(c.center.x, 2.0, 1e-15, "centre between them");
	assert_near(c.center.y, 1.0, 1e-15, "centre between them");
	assert_below(tensor_error(c.inertia, whole.inertia), 1e-14, "parallel-axis theorem");
	// A part turned 90 degrees about z swaps its x and y inertia.
	sn_transform turned[1] = { pose(sn_v3(0, 0, 0), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI)) };
	c = collide_mass_combine(&whole, turned, 1);
	assert_near(c.inertia.cx.x / whole.inertia.cy.y, 1.0, 1e-14, "rotated tensor");
	// Nothing: zero.
	collide_mass none = collide_mass_combine(parts, poses, 0);
	assert_true(none.mass == 0.0);
}

static void test_bad_input(void** state)
{
	(void)state;
	collide_mass m;
	char detail[256];
	collide_shape s = collide_make_sphere(0.1);
	assert_sn_error(collide_mass_compute(&s, 0.0, &m, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(collide_mass_compute(&s, -1.0, &m, detail, sizeof(detail)), SN_ERR_NEGATIVE_VALUE);
	assert_sn_error(collide_mass_compute(&s, NAN, &m, detail, sizeof(detail)), SN_ERR_NOT_FINITE);
	assert_sn_error(collide_mass_compute(&s, 1e308, &m, detail, sizeof(detail)), SN_ERR_NOT_FINITE);
	collide_shape bad = collide_make_sphere(-1.0);
	assert_sn_error(collide_mass_compute(&bad, 1.0, &m, detail, sizeof(detail)), SN_ERR_NEGATIVE_VALUE);
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	assert_sn_error(collide_mass_compute(&plane, 1.0, &m, detail, sizeof(detail)), SN_ERR_UNSUPPORTED);
	assert_non_null(strstr(detail, "static"));
	assert_sn_error(collide_mass_compute(&s, 1.0, NULL, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hull_equals_box),   cmocka_unit_test(test_hull_tetrahedron),
		cmocka_unit_test(test_capsule_by_slices), cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_hull_prism),        cmocka_unit_test(test_combine),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
