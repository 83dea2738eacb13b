// A start outside joint limits (artic/solve.c, split impulse): every solver (XPBD and DIRECT worlds step
// articulations with the TGS path) brings the joints back at a bounded speed without turning the
// correction into kinetic energy, at dt 1e-4, 1e-3 and 1/60 s.
#include "artic_support.h"

#include <math.h>
#include <stdlib.h>

enum
{
	CHAIN = 6
};

// A floating chain of CHAIN 1 kg boxes, 0.4 m long, hinges alternating about y and z, limits [-0.2, 0.2]
// rad, every joint started at +-angle rad (OUTSIDE_ANGLE: 1 rad outside its limit), the base moving at
// base_v and the joints at joint_speed.
#define OUTSIDE_ANGLE 1.2

static sn_articulation_id chain_at(sn_world* world, double angle, sn_vec3 base_v, double joint_speed)
{
	sn_link_def links[CHAIN + 1];
	for (int i = 0; i <= CHAIN; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->mass = 1.0;
		l->inertia = sn_inertia_box(1.0, sn_v3(0.2, 0.03, 0.03));
		l->center_of_mass = sn_v3(0.2, 0, 0);
		if (i == 0)
		{
			continue;
		}
		l->parent = i - 1;
		sn_quat axis = (i % 2 == 1) ? quat_x_to_y() : quat_x_to_z();
		l->parent_frame = (sn_transform){ sn_v3(0.4, 0, 0), axis };
		l->child_frame.q = axis;
		l->limit[0] = (sn_limit){ true, -0.2, 0.2, sn_soft_rigid() };
		l->initial_position[0] = (i % 2 == 1) ? angle : -angle;
		l->initial_velocity[0] = (i % 3 == 0 ? -1.0 : 1.0) * joint_speed;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	ad.fixed_base = false;
	ad.base_linear_velocity = base_v;
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, CHAIN + 1, &id));
	return id;
}

static sn_articulation_id outside_chain(sn_world* world, sn_vec3 base_v, double joint_speed)
{
	return chain_at(world, OUTSIDE_ANGLE, base_v, joint_speed);
}

// Kinetic energy plus the links' potential energy in gravity g (z up).
static double chain_energy(const sn_world* world, sn_articulation_id id, double g)
{
	double e = sn_articulation_get_kinetic_energy(world, id);
	for (int i = 0; i <= CHAIN; ++i)
	{
		sn_transform t = sn_articulation_get_link_pose(world, id, i);
		e += g * sn_transform_point(t, sn_v3(0.2, 0, 0)).z;
	}
	return e;
}

static double worst_violation(const sn_world* world, sn_articulation_id id)
{
	double worst = 0.0;
	for (int d = 0; d < CHAIN; ++d)
	{
		double q = sn_articulation_get_joint_position(world, id, d);
		worst = fmax(worst, fabs(q) - 0.2);
	}
	return worst;
}

static const sn_solver solvers[4] = { SN_SOLVER_PGS, SN_SOLVER_TGS, SN_SOLVER_XPBD, SN_SOLVER_DIRECT };
static const double dts[3] = { 1e-4, 1e-3, 1.0 / 60.0 };

static void test_correction_adds_no_energy(void** state)
{
	(void)state;
	// Joints at rest, the base translating, gravity on: the chain falls as one body and nothing else moves
	// but the correction. The correction's work is zero here: its pseudo impulses are internal, so the
	// centre of mass (and the potential energy) does not move with them, and with every link moving at the
	// base's velocity the kinetic energy does not depend on the configuration. So the energy may never rise
	// above its start value (semi-implicit Euler loses m g^2 h^2 / 2 per step in free fall; rounding of
	// the ~100 J terms: 1e-12 of them), and the joints must come back inside their limits: 1 rad at
	// max_correction_speed 1 rad/s takes 1 s alone, and the corrections of neighbouring joints partly undo
	// each other (measured: the bulk is done after 1.8 s in PGS, 3 s in TGS, whose windows each take one
	// Gauss-Seidel pass over the corrections); then what is left shrinks by about 1 - erp per step: after
	// 4 s every joint is back within 1e-5 rad (measured 4e-6 in TGS at 1/60 s, below 1e-7 elsewhere).
	for (int s = 0; s < 4; ++s)
	{
		for (int d = 0; d < 3; ++d)
		{
			sn_world* world = make_world(solvers[s], dts[d]);
			sn_articulation_id id = outside_chain(world, sn_v3(0.3, 0.0, 1.0), 0.0);
			const double e0 = chain_energy(world, id, artic_g);
			int steps = (int)(4.0 / dts[d] + 0.5);
			for (int i = 0; i < steps; ++i)
			{
				assert_sn_ok(sn_world_step(world));
				double e = chain_energy(world, id, artic_g);
				if (!(e <= e0 + 1e-12 * 100.0))
				{
					fail_msg("%s dt %g step %d: energy %.17g J rose above the start %.17g J",
							 sn_solver_name(solvers[s]), dts[d], i + 1, e, e0);
				}
			}
			double worst = worst_violation(world, id);
			if (!(worst <= 1e-5))
			{
				fail_msg("%s dt %g: a joint is still %.3g rad outside its limit", sn_solver_name(solvers[s]), dts[d],
						 worst);
			}
			for (int k = 0; k < CHAIN; ++k)
			{
				// The correction never became speed (rounding of the free fall's terms).
				assert_below(fabs(sn_articulation_get_joint_velocity(world, id, k)), 1e-9, "joints still at rest");
			}
			sn_world_destroy(world);
		}
	}
}

// One step of a twin of the world (from a snapshot) with erp 0, which turns the limits' correction off:
// the energy the physics alone leaves after the step.
static double step_without_correction(const sn_world* world, sn_articulation_id id, double g)
{
	size_t size = sn_world_snapshot_size(world);
	void* bytes = malloc(size);
	assert_non_null(bytes);
	assert_sn_ok(sn_world_snapshot_write(world, bytes, size, NULL));
	sn_world* twin = NULL;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &twin));
	free(bytes);
	assert_sn_ok(sn_world_set_erp(twin, 0.0));
	assert_sn_ok(sn_world_step(twin));
	double e = chain_energy(twin, id, g);
	sn_world_destroy(twin);
	return e;
}

// The most kinetic energy the chain can have, at rest base and the start's joint speeds, anywhere on the
// way from its start to straight (every joint at s times the start angle, s from 1 to 0 in 24 stations):
// what moving the configuration alone, at unchanged joint speeds, can add to the start's.
static double unfolding_energy_gain(double joint_speed)
{
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	double start = 0.0, largest = 0.0;
	for (int k = 0; k <= 24; ++k)
	{
		sn_articulation_id id = chain_at(world, OUTSIDE_ANGLE * (1.0 - k / 24.0), sn_v3(0, 0, 0), joint_speed);
		double e = sn_articulation_get_kinetic_energy(world, id);
		start = k == 0 ? e : start;
		largest = fmax(largest, e);
		assert_sn_ok(sn_destroy_articulation(world, id));
	}
	sn_world_destroy(world);
	return largest - start;
}

static void test_correction_work_in_motion(void** state)
{
	(void)state;
	// The same chain flailing (joints at 0.5 rad/s, no gravity: in a falling frame the kinetic energy of a
	// reconfiguration would depend on the fall speed). Now the correction does work: unfolding the chain
	// at the same joint speeds changes its kinetic energy (0.47 J folded, 1.96 J at the limits). Each step
	// is compared with a twin stepped from the same state with the correction off (erp 0): the twin's
	// energy is what the physics alone leaves, which may not rise (limits stop joints inelastically)
	// beyond the integrator's own error: semi-implicit Euler, whose velocity terms at the midpoint speeds
	// are predicted without the rows (artic/dynamics.c), so a limit that stops a joint leaves them off by
	// the impact's speed change for one step. Measured at most 1.6% of the energy in one step at 1/60 s
	// (an impact that spins the base up), 1.5e-5 J at 1 ms, 2e-6 J at 1e-4 s; allowed 1.2 E dt per step
	// (2% at 1/60 s), and in all 10% of the start energy. The difference is the correction's work in that
	// step. The energy may never exceed its start value plus that work and that error summed over the
	// steps, and the joints must come back inside their limits. That alone holds by construction (the
	// work is what the correction added); what bounds the work is that the correction moves positions
	// only and leaves the joint speeds alone: it can add at most what unfolding the chain at its joint
	// speeds adds (unfolding_energy_gain: 1.71 J; the limits only slow the joints down), measured 0.16 J
	// (PGS) to 0.24 J (TGS). With 2 rad/s joints before the split impulse, the correction's bias went
	// into the joint speeds: 2e4 J (PGS) and 1e23 J (TGS) at 1 ms.
	const double work_bound = unfolding_energy_gain(0.5);
	print_message("unfolding at 0.5 rad/s adds at most %.4g J\n", work_bound);
	assert_below(work_bound, 2.0, "measured 1.71 J; a bound, not a number that grows with the solver");
	for (int s = 0; s < 4; ++s)
	{
		for (int d = 0; d < 3; ++d)
		{
			sn_world* world = make_world(solvers[s], dts[d]);
			assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
			sn_articulation_id id = outside_chain(world, sn_v3(0.0, 0.0, 0.0), 0.5);
			const double e0 = chain_energy(world, id, 0.0);
			double e = e0, work = 0.0, drift = 0.0;
			int steps = (int)(3.0 / dts[d] + 0.5);
			for (int i = 0; i < steps; ++i)
			{
				double physics = step_without_correction(world, id, 0.0);
				assert_sn_ok(sn_world_step(world));
				double e1 = chain_energy(world, id, 0.0);
				if (!(physics <= e + 1.2 * e * dts[d] + 1e-12))
				{
					fail_msg("%s dt %g step %d: the physics alone raised the energy from %.17g to %.17g J",
							 sn_solver_name(solvers[s]), dts[d], i + 1, e, physics);
				}
				drift += fmax(physics - e, 0.0);
				work += fmax(e1 - physics, 0.0);
				if (!(e1 <= e0 + work + drift + 1e-9))
				{
					fail_msg("%s dt %g step %d: energy %.17g J above start %.17g J plus the correction's work %.17g J",
							 sn_solver_name(solvers[s]), dts[d], i + 1, e1, e0, work);
				}
				e = e1;
			}
			// Back inside after 3 s (the bulk takes at most 3 s, test_correction_adds_no_energy).
			double worst = worst_violation(world, id);
			if (!(worst <= 1e-3))
			{
				fail_msg("%s dt %g: a joint is still %.3g rad outside its limit", sn_solver_name(solvers[s]), dts[d],
						 worst);
			}
			assert_below(drift, 0.1 * e0, "the integrator's error summed over the run");
			if (!(work <= work_bound))
			{
				fail_msg("%s dt %g: the correction did %.6g J of work, more than unfolding at the joints' speeds "
						 "can add (%.6g J)",
						 sn_solver_name(solvers[s]), dts[d], work, work_bound);
			}
			print_message(
				"%s dt %g: start %.4g J, end %.4g J, work of the correction %.4g J, integrator drift %.3g J\n",
				sn_solver_name(solvers[s]), dts[d], e0, e, work, drift);
			sn_world_destroy(world);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correction_adds_no_energy),
		cmocka_unit_test(test_correction_work_in_motion),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
