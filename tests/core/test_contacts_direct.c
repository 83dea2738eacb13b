// Contacts in the DIRECT solver (solver/direct_contacts.c): the scenes of the contact benchmark and the
// simple cases against their closed forms, the friction bounds at every point of every step, soft
// contacts, restitution and its threshold, and what the solve costs when contacts come and go (the
// ordering is redone when pairs of shapes begin or end, not when they touch; nothing is allocated once
// a scene has settled).
//
// Tolerances. DIRECT solves each step's system exactly: a sticking or resting contact holds its rows to
// round-off once the regularisation is refined away, and the scenes' integrator is the one closed forms
// are compared with, so what is left is (a) the time discretisation: symplectic Euler puts a slide's
// stopping point and a fall's contact time off by O(v h), (b) the speculative contact: a ball meets the
// ground when its gap is below its speed times h, up to v h = 4.4 mm early, and bounces from there, and
// (c) round-off (1e-12 relative to the step's speeds and impulses).
#include "core_support.h"

#include "world.h"

#include <math.h>
#include <stdlib.h>

static const double g = 9.81;

static void step_n(sn_world* world, int steps)
{
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
}

// The total force the contacts of a body exert on it along +z, N (readback: the last step's impulses).
static double normal_force_z(const sn_world* world, sn_body_id id)
{
	sn_contact cs[16];
	int n = sn_body_get_contacts(world, id, cs, 16);
	double f = 0.0;
	for (int i = 0; i < n && i < 16; ++i)
	{
		double sign = sn_body_id_equals(cs[i].body_b, id) ? 1.0 : -1.0;
		for (int k = 0; k < cs[i].point_count; ++k)
		{
			f += sign * cs[i].points[k].normal_impulse * cs[i].normal.z;
		}
	}
	return f / sn_world_get_time_step(world);
}

static double kinetic_energy(const sn_world* world, sn_body_id id, double inertia)
{
	sn_vec3 v = sn_body_get_linear_velocity(world, id), w = sn_body_get_angular_velocity(world, id);
	return 0.5 * sn_body_get_mass(world, id) * sn_dot(v, v) + 0.5 * inertia * sn_dot(w, w);
}

// ---- the friction bounds -----------------------------------------------------------------------------------

typedef struct cone_check
{
	double excess;     // largest (|P_t| - mu P_n) / (mu P_n) over the points that push, relative
	double negative;   // largest -P_n, N*s
	double projection; // largest impulse the final projection moved, N*s
	double largest;    // largest normal impulse seen, N*s
	int points;        // points checked
	int sliding;       // of them on the edge of their disk (within 1e-9)
} cone_check;

// Every point of the last step: P_n >= 0 and |P_t| <= mu P_n.
static void check_cone(const sn_world* world, double mu, cone_check* c)
{
	sn_contact cs[64];
	int n = sn_world_get_contacts(world, cs, 64);
	for (int i = 0; i < n && i < 64; ++i)
	{
		for (int k = 0; k < cs[i].point_count; ++k)
		{
			const sn_contact_point* p = cs[i].points + k;
			double pn = p->normal_impulse;
			double pt = hypot(p->tangent_impulse[0], p->tangent_impulse[1]);
			c->negative = fmax(c->negative, -pn);
			c->largest = fmax(c->largest, pn);
			c->points += 1;
			if (pn > 0.0)
			{
				c->excess = fmax(c->excess, (pt - mu * pn) / (mu * pn));
				c->sliding += pt >= mu * pn * (1.0 - 1e-9) ? 1 : 0;
			}
			else
			{
				c->excess = fmax(c->excess, pt > 0.0 ? INFINITY : 0.0);
			}
		}
	}
	c->projection = fmax(c->projection, world->direct.last_projection);
}

static void run_checking(sn_world* world, int steps, double mu, cone_check* c)
{
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		check_cone(world, mu, c);
	}
}

static void assert_cone(const cone_check* c, const char* scene)
{
	print_message("MEASURE %s: %d points, %d on the edge of their disk, largest relative excess %.3g, largest "
				  "normal %.3g N*s, most negative normal %.3g N*s, largest final projection %.3g N*s\n",
				  scene, c->points, c->sliding, c->excess, c->largest, c->negative, c->projection);
	assert_true(c->points > 0);
	// The projection ends every step: |P_t| <= mu P_n holds to the rounding of the scaling (a few ulp).
	assert_below(c->excess, 4e-16, "friction projected onto mu P_n: one multiplication and a square root");
	assert_below(c->negative, 0.0, "normal impulses clamped at 0 exactly");
}

// Scenes that slide, stick, spin and stop: at every step every point inside its cone.
static void test_friction_bounds_hold(void** state)
{
	(void)state;
	sn_body_id b;
	// Sliding down the incline (mu 0.3), and held on it (mu 0.7).
	const double mus[2] = { 0.3, 0.7 };
	for (int m = 0; m < 2; ++m)
	{
		cone_check c = { 0 };
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
		assert_sn_ok(scene_c2_incline(w, mus[m], &b));
		run_checking(w, 1000, mus[m], &c);
		assert_cone(&c, mus[m] < 0.5 ? "incline, sliding" : "incline, held");
		// Held, the two points behind sit on the edge of their disks without slipping (the box tips its
		// load forward; the front points hold the rest).
		assert_true(c.sliding > 0);
		sn_world_destroy(w);
	}
	// A box sliding diagonally and spinning until it stops.
	{
		cone_check c = { 0 };
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
		assert_sn_ok(scene_sliding_box(w, 2.0, 0.5, &b));
		assert_sn_ok(sn_body_set_linear_velocity(w, b, sn_v3(1.5, 1.2, 0)));
		assert_sn_ok(sn_body_set_angular_velocity(w, b, sn_v3(0, 0, 5)));
		run_checking(w, 1000, 0.5, &c);
		assert_cone(&c, "box sliding and spinning to a stop");
		assert_true(c.sliding > 0);
		report_measure("its unsettled steps", sn_world_get_solver_stats(w).direct_unsettled_steps);
		sn_world_destroy(w);
	}
	// A box thrown tumbling onto the ground, and the rolling sphere.
	{
		cone_check c = { 0 };
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
		sn_material m = scene_material(0.4, 0.0);
		assert_sn_ok(scene_ground(w, sn_v3(0, 0, 1), m, NULL));
		sn_transform pose = { sn_v3(0, 0, 0.5), sn_quat_from_axis_angle(sn_normalize(sn_v3(1, 2, 3)), 0.7) };
		assert_sn_ok(scene_box(w, pose, 0.1, 1.0, m, &b, NULL));
		assert_sn_ok(sn_body_set_linear_velocity(w, b, sn_v3(2.0, -1.0, 0)));
		assert_sn_ok(sn_body_set_angular_velocity(w, b, sn_v3(3, -8, 4)));
		run_checking(w, 2000, 0.4, &c);
		assert_cone(&c, "box thrown tumbling");
		sn_world_destroy(w);
		cone_check r = { 0 };
		w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
		assert_sn_ok(scene_c4_rolling_sphere(w, &b));
		run_checking(w, 1000, 1.0, &r);
		assert_cone(&r, "rolling sphere");
		sn_world_destroy(w);
	}
	// The 10-box stack at 1/240 s.
	{
		cone_check c = { 0 };
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 1.0 / 240.0);
		sn_body_id boxes[SCENE_C5_BOXES];
		assert_sn_ok(scene_c5_stack(w, boxes));
		run_checking(w, 480, SCENE_CONTACT_FRICTION, &c);
		assert_cone(&c, "10-box stack");
		sn_world_destroy(w);
	}
}

// ---- closed forms -----------------------------------------------------------------------------------------

// C1: a 1 kg box resting on the ground: the contacts carry m g, nothing jitters.
static void test_resting_box(void** state)
{
	(void)state;
	const double dts[2] = { 0.001, 1.0 / 240.0 };
	for (int i = 0; i < 2; ++i)
	{
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, dts[i]);
		sn_body_id box;
		assert_sn_ok(scene_c1_resting_box(w, &box));
		double deepest = 0.0;
		int steps = (int)lround(2.0 / dts[i]);
		for (int s = 0; s < steps; ++s)
		{
			assert_sn_ok(sn_world_step(w));
			deepest = fmin(deepest, sn_world_get_collision_stats(w).deepest);
		}
		double f = normal_force_z(w, box);
		double ke = kinetic_energy(w, box, 1.0 * 0.2 * 0.2 / 6.0);
		print_message("MEASURE C1 at dt %.6g: normal force %.12g N (m g = 9.81), kinetic energy after 2 s %.3g J, "
					  "deepest %.3g m\n",
					  dts[i], f, ke, deepest);
		assert_near(f, 1.0 * g, 1e-9 * g, "the exact solve carries the weight to round-off");
		assert_below(ke, 1e-6, "the issue's bound; a resting contact's rows hold J v = 0 to round-off");
		assert_below(-deepest, sn_world_get_contact_settings(w).slop, "penetration within the slop");
		sn_world_destroy(w);
	}
}

// C2: a box on a 30 degree incline stays with mu 0.7 (tan 30 = 0.577) and slides with mu 0.3 at
// a = g (sin 30 - mu cos 30).
static void test_incline(void** state)
{
	(void)state;
	sn_vec3 down = scene_c2_downhill();
	sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	sn_body_id box;
	assert_sn_ok(scene_c2_incline(w, 0.7, &box));
	sn_vec3 p0 = sn_body_get_center_of_mass(w, box);
	step_n(w, 2000);
	double moved = sn_length(sn_sub(sn_body_get_center_of_mass(w, box), p0));
	report_measure("C2a: displacement of the held box after 2 s (m)", moved);
	assert_below(moved, 1e-9, "sticking rows hold J v = 0 exactly; round-off over 2000 steps");
	sn_world_destroy(w);

	w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	assert_sn_ok(scene_c2_incline(w, 0.3, &box));
	step_n(w, 500);
	double v05 = sn_dot(sn_body_get_linear_velocity(w, box), down);
	step_n(w, 1000);
	double v15 = sn_dot(sn_body_get_linear_velocity(w, box), down);
	double a = v15 - v05, exact = g * (sin(SN_PI / 6.0) - 0.3 * cos(SN_PI / 6.0));
	print_message("MEASURE C2b: acceleration %.7f m/s^2 (exact %.7f), relative error %.3g\n", a, exact,
				  a / exact - 1.0);
	assert_near(a, exact, 1e-3 * exact,
				"the issue asks 1%; a steady slide is exact but for the fixed point's 1e-8 and round-off");
	sn_world_destroy(w);
}

// A box sliding on flat ground from v0 stops after v0^2 / (2 mu g).
static void test_sliding_box_stops(void** state)
{
	(void)state;
	const double v0 = 2.0, mu = 0.5;
	sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	sn_body_id box;
	assert_sn_ok(scene_sliding_box(w, v0, mu, &box));
	double x0 = sn_body_get_center_of_mass(w, box).x;
	step_n(w, 1000);
	double d = sn_body_get_center_of_mass(w, box).x - x0, exact = v0 * v0 / (2.0 * mu * g);
	double v = sn_length(sn_body_get_linear_velocity(w, box));
	print_message("MEASURE sliding box: stopped after %.6f m (exact %.6f), relative error %.3g, speed after 1 s %.3g\n",
				  d, exact, d / exact - 1.0, v);
	// Symplectic Euler moves by v_{n+1} h: the distance is short by v0 h / 2 = 1 mm (0.25%).
	assert_near(d, exact, 0.01 * exact, "the issue's 1%; the integrator's v0 h / 2 is 0.25%");
	assert_below(v, 1e-9, "stopped: the sticking rows hold it");
	sn_world_destroy(w);
}

// C4: a solid sphere rolls down a 20 degree incline at (5/7) g sin 20, without slipping.
static void test_rolling_sphere(void** state)
{
	(void)state;
	const double angle = 20.0 * SN_PI / 180.0;
	sn_vec3 down = sn_v3(cos(angle), 0.0, -sin(angle)), n = sn_v3(sin(angle), 0.0, cos(angle));
	sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	sn_body_id ball;
	assert_sn_ok(scene_c4_rolling_sphere(w, &ball));
	step_n(w, 500);
	double v05 = sn_dot(sn_body_get_linear_velocity(w, ball), down);
	double slip = 0.0;
	for (int i = 0; i < 1000; ++i)
	{
		assert_sn_ok(sn_world_step(w));
		sn_vec3 v = sn_body_get_linear_velocity(w, ball), om = sn_body_get_angular_velocity(w, ball);
		slip = fmax(slip, sn_length(sn_add(v, sn_cross(om, sn_scale(-0.1, n)))));
	}
	double a = sn_dot(sn_body_get_linear_velocity(w, ball), down) - v05, exact = 5.0 / 7.0 * g * sin(angle);
	print_message("MEASURE C4: acceleration %.7f m/s^2 (exact %.7f), relative error %.3g, largest slip %.3g m/s\n", a,
				  exact, a / exact - 1.0, slip);
	assert_near(a, exact, 1e-3 * exact, "the issue asks 1% (0.1% as its goal): the sticking point is exact");
	assert_below(slip, 1e-9, "rolling without slipping: the contact point's rows hold J v = 0");
	sn_world_destroy(w);
}

// C3: a ball with restitution 0.5 dropped from 1 m rebounds to 0.25 m; one slower than the threshold
// does not bounce.
static void test_bounce(void** state)
{
	(void)state;
	sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	sn_body_id ball;
	assert_sn_ok(scene_c3_bounce(w, 0.5, &ball));
	double apex = 0.0;
	bool up = false;
	for (int i = 0; i < 1200; ++i)
	{
		assert_sn_ok(sn_world_step(w));
		up = up || sn_body_get_linear_velocity(w, ball).z > 0.0;
		if (up)
		{
			apex = fmax(apex, sn_body_get_center_of_mass(w, ball).z - 0.1);
		}
	}
	print_message("MEASURE C3: rebound apex %.5f m (exact 0.25), relative error %.3g\n", apex, apex / 0.25 - 1.0);
	assert_near(apex, 0.25, 0.02 * 0.25, "the issue's 2%: a speculative contact bounces up to v h = 4.4 mm early");
	sn_world_destroy(w);

	// From 2 cm the ball arrives at 0.63 m/s, below the default threshold of 1 m/s: it stays down.
	w = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	assert_sn_ok(scene_dropped_ball(w, 0.02, 0.5, &ball));
	double highest_after = 0.0;
	bool landed = false;
	for (int i = 0; i < 500; ++i)
	{
		assert_sn_ok(sn_world_step(w));
		double z = sn_body_get_center_of_mass(w, ball).z - 0.1;
		landed = landed || z < 1e-3;
		if (landed)
		{
			highest_after = fmax(highest_after, z);
		}
	}
	report_measure("slow drop: highest after landing (m)", highest_after);
	assert_true(landed);
	assert_below(highest_after, 1e-3, "below the restitution threshold a contact is inelastic");
	sn_world_destroy(w);
}

// C5: the 10-box stack stands 10 s at 1/240 s and at 1 ms, the top box moving less than 5 mm.
static void test_stack_stands(void** state)
{
	(void)state;
	const double dts[2] = { 1.0 / 240.0, 0.001 };
	for (int i = 0; i < 2; ++i)
	{
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, dts[i]);
		sn_body_id boxes[SCENE_C5_BOXES];
		assert_sn_ok(scene_c5_stack(w, boxes));
		sn_vec3 p0 = sn_body_get_center_of_mass(w, boxes[SCENE_C5_BOXES - 1]);
		step_n(w, (int)lround(10.0 / dts[i]));
		double moved = sn_length(sn_sub(sn_body_get_center_of_mass(w, boxes[SCENE_C5_BOXES - 1]), p0));
		sn_solver_stats st = sn_world_get_solver_stats(w);
		print_message("MEASURE C5 at dt %.6g: top box moved %.3g m in 10 s, unsettled steps %llu\n", dts[i], moved,
					  (unsigned long long)st.direct_unsettled_steps);
		assert_below(moved, 5e-3, "the issue's bound");
		assert_below(moved, 1e-9, "a settled stack's rows hold to round-off (1e-13 m measured)");
		assert_true(st.direct_unsettled_steps == 0);
		sn_world_destroy(w);
	}
}

// A soft contact under a static load sinks by F c: a 1 kg box on four points whose manifold has the
// compliance c, at two steps.
static void test_soft_contact_sinks_f_c(void** state)
{
	(void)state;
	const double c = 1e-4, dts[2] = { 0.001, 1.0 / 240.0 };
	for (int i = 0; i < 2; ++i)
	{
		sn_world* w = test_scene_world(SN_SOLVER_DIRECT, dts[i]);
		assert_sn_ok(scene_ground(w, sn_v3(0, 0, 1), scene_material(0.5, 0.0), NULL));
		sn_material soft = scene_material(0.5, 0.0);
		soft.soft = sn_soft_compliance(c, 0.02); // critically damped: k = 1e4 N/m, b = 200 N*s/m on 1 kg
		sn_body_id box;
		sn_transform pose = { sn_v3(0, 0, 0.1), sn_quat_identity() };
		assert_sn_ok(scene_box(w, pose, 0.1, 1.0, soft, &box, NULL));
		step_n(w, (int)lround(3.0 / dts[i]));
		double sink = 0.1 - sn_body_get_center_of_mass(w, box).z, exact = 1.0 * g * c;
		print_message("MEASURE soft contact at dt %.6g: sink %.12g m (F c = %.12g), relative error %.3g\n", dts[i],
					  sink, exact, sink / exact - 1.0);
		assert_near(sink, exact, 1e-6 * exact, "the issue's 1e-6: DIRECT's soft row rests where k s = -F exactly");
		sn_world_destroy(w);
	}
}

// ---- the graph and the cost of contacts coming and going ---------------------------------------------------

// The ordering is redone when a pair of shapes begins or ends, not when its points touch or part: a
// ball bouncing low on the ground keeps its pair (its fat box stays on the plane), so its bounces cost
// no analysis. Once the ball rests, steps allocate nothing.
static void test_analysis_follows_pairs(void** state)
{
	(void)state;
	sn_world_def wd = scene_world_def(SN_SOLVER_DIRECT, 0.001);
	wd.contact.restitution_threshold = 0.05; // bounces from 1 cm (0.44 m/s)
	sn_world* w = NULL;
	assert_sn_ok(sn_world_create(&wd, &w));
	sn_body_id ball;
	assert_sn_ok(scene_dropped_ball(w, 0.01, 0.9, &ball));
	assert_sn_ok(sn_world_step(w));
	uint64_t start = w->direct.analyses;
	int touching_changes = 0;
	bool touching = false;
	uint64_t settled_allocations = 0;
	for (int i = 0; i < 4000; ++i)
	{
		assert_sn_ok(sn_world_step(w));
		bool now = sn_world_get_collision_stats(w).touching > 0;
		touching_changes += now != touching ? 1 : 0;
		touching = now;
		if (i == 2999)
		{
			settled_allocations = sn_world_get_memory_stats(w).allocations;
		}
	}
	uint64_t analyses = w->direct.analyses - start;
	print_message("MEASURE low bouncing ball: %d changes of touching, %llu analyses after the first step\n",
				  touching_changes, (unsigned long long)analyses);
	assert_true(touching_changes >= 6); // it bounced
	assert_true(analyses == 0);
	assert_true(sn_world_get_memory_stats(w).allocations == settled_allocations);
	sn_world_destroy(w);
}

// A stack built while the world runs: each new box's pairs make the graph grow and are analysed once;
// a step that only changes which points touch is not.
static void test_analysis_cost(void** state)
{
	(void)state;
	sn_world* w = test_scene_world(SN_SOLVER_DIRECT, 1.0 / 240.0);
	sn_body_id boxes[SCENE_C5_BOXES];
	assert_sn_ok(scene_c5_stack(w, boxes));
	assert_sn_ok(sn_world_step(w));
	uint64_t a0 = w->direct.analyses;
	step_n(w, 240);
	report_measure("C5: analyses in the second to 241st steps", (double)(w->direct.analyses - a0));
	assert_true(w->direct.analyses == a0);
	sn_solver_stats st = sn_world_get_solver_stats(w);
	report_measure("C5: blocks of the factor (no fill: a chain of contact nodes)", st.direct_factor_blocks);
	report_measure("C5: edges of the graph", st.direct_graph_edges);
	assert_true(st.direct_factor_blocks == st.direct_graph_edges); // a tree factorises without fill
	sn_world_destroy(w);
}

// ---- memory: a step that grows the graph fails cleanly --------------------------------------------------

typedef struct counting
{
	uint64_t allocations, frees;
	int64_t fail_after; // this many more allocations succeed, then one fails; negative: never fail
} counting;

static void* counting_alloc(void* context, size_t size)
{
	counting* c = context;
	if (c->fail_after == 0)
	{
		c->fail_after = -1;
		return NULL;
	}
	c->fail_after -= c->fail_after > 0 ? 1 : 0;
	c->allocations += 1;
	return malloc(size);
}

static void counting_free(void* context, void* pointer, size_t size)
{
	(void)size;
	counting* c = context;
	c->frees += pointer != NULL ? 1 : 0;
	free(pointer);
}

// A stack, a pendulum hinged to the world beside it and a ball on the ground, stepped a while; then a box
// is dropped onto the stack, so the next step finds new pairs, analyses the graph again and grows the
// solver's arrays.
static sn_world* grown_contact_world(counting* c)
{
	memset(c, 0, sizeof(*c));
	c->fail_after = -1;
	sn_world_def wd = scene_world_def(SN_SOLVER_DIRECT, 0.001);
	wd.allocator = (sn_allocator){ counting_alloc, counting_free, c };
	sn_world* w = NULL;
	assert_sn_ok(sn_world_create(&wd, &w));
	sn_body_id boxes[SCENE_C5_BOXES], ball, bob, top;
	assert_sn_ok(scene_c5_stack(w, boxes));
	assert_sn_ok(scene_ball(w, sn_v3(0.5, 0, 0.1), 0.1, 1.0, scene_material(0.5, 0.0), &ball, NULL));
	sn_transform pose = { sn_v3(-0.6, 0, 0.5), sn_quat_identity() };
	assert_sn_ok(scene_box(w, pose, 0.1, 1.0, scene_material(0.5, 0.0), &bob, NULL));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_b = bob;
	hd.base.frame_a.p = sn_v3(-0.6, 0, 1.0);
	hd.base.frame_b.p = sn_v3(0, 0, 0.5);
	hd.base.frame_a.q = hd.base.frame_b.q = scene_x_to_y();
	sn_joint_id hinge;
	assert_sn_ok(sn_create_hinge_joint(w, &hd, &hinge));
	assert_sn_ok(sn_body_set_angular_velocity(w, bob, sn_v3(0, 3, 0)));
	step_n(w, 20);
	pose.p = sn_v3(0.02, 0, 2.05);
	assert_sn_ok(scene_box(w, pose, 0.1, 1.0, scene_material(0.5, 0.0), &top, NULL));
	return w;
}

// For k = 0, 1, ...: the k-th allocation of that step fails; the step returns SN_ERR_NO_MEMORY and the
// world is as it was (time, step count, state hash); stepped on, it matches a world that never failed.
static void test_step_fails_cleanly_with_contacts(void** state)
{
	(void)state;
	counting t;
	sn_world* twin = grown_contact_world(&t);
	uint64_t before = t.allocations, analyses = twin->direct.analyses;
	step_n(twin, 1);
	uint64_t step_allocations = t.allocations - before;
	report_measure("allocations in the step that grows the graph", (double)step_allocations);
	report_measure("its analyses", (double)(twin->direct.analyses - analyses));
	step_n(twin, 100);
	int failures = 0;
	for (int k = 0;; ++k)
	{
		counting c;
		sn_world* w = grown_contact_world(&c);
		uint64_t hash = sn_world_state_hash(w), steps = sn_world_get_step_count(w);
		double time = sn_world_get_time(w);
		c.fail_after = k;
		sn_error err = sn_world_step(w);
		c.fail_after = -1;
		if (err == SN_ERR_OK)
		{
			sn_world_destroy(w);
			assert_true(c.allocations == c.frees);
			break;
		}
		assert_sn_error(err, SN_ERR_NO_MEMORY);
		assert_true(sn_world_state_hash(w) == hash && sn_world_get_step_count(w) == steps &&
					sn_world_get_time(w) == time);
		failures += 1;
		step_n(w, 101);
		assert_true(sn_world_state_hash(w) == sn_world_state_hash(twin));
		sn_world_destroy(w);
		assert_true(c.allocations == c.frees);
		assert_true(k < 200);
	}
	assert_int_equal(failures, step_allocations); // each of them was made to fail once
	assert_true(twin->direct.analyses > analyses);
	sn_world_destroy(twin);
	assert_true(t.allocations == t.frees);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_friction_bounds_hold),
		cmocka_unit_test(test_resting_box),
		cmocka_unit_test(test_incline),
		cmocka_unit_test(test_sliding_box_stops),
		cmocka_unit_test(test_rolling_sphere),
		cmocka_unit_test(test_bounce),
		cmocka_unit_test(test_stack_stands),
		cmocka_unit_test(test_soft_contact_sinks_f_c),
		cmocka_unit_test(test_analysis_follows_pairs),
		cmocka_unit_test(test_analysis_cost),
		cmocka_unit_test(test_step_fails_cleanly_with_contacts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
