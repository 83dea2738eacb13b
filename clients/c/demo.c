// sinew-demo: a scene on the embedded core, printed as a table while it runs.
//
//   pendulum   a 1 m pendulum released at 90 degrees from the vertical; its angle from the vertical
//   chain      ten hinged boxes falling from horizontal; the worst joint gap stays sub-millimetre
//   winch      a hinge motor spinning a drum up to 20 rad/s with a 5 N*m cap (reached after ~0.7 s)
//   hook       a fixed joint holding 20 kg with a 150 N break force: a 10 kg load is added at 1 s,
//              and the hook breaks
#include "sinew/sinew.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(sn_world* world, sn_error err, const char* what)
{
	if (err != SN_ERR_OK)
	{
		fprintf(stderr, "sinew-demo: %s failed: %s (%s)\n", what, sn_error_name(err),
				sn_world_last_error_detail(world));
		exit(1);
	}
}

static sn_body_id add_body(sn_world* world, sn_vec3 at, double mass, sn_mat33 inertia)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = at;
	bd.mass = mass;
	bd.inertia = inertia;
	sn_body_id id;
	check(world, sn_create_body(world, &bd, &id), "create body");
	return id;
}

int main(int argc, char** argv)
{
	double seconds = 3.0;
	sn_solver solver = SN_SOLVER_TGS;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
		{
			seconds = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc)
		{
			++i;
			solver = SN_SOLVER_COUNT;
			for (int k = 0; k < SN_SOLVER_COUNT; ++k)
			{
				if (strcmp(argv[i], sn_solver_name((sn_solver)k)) == 0)
				{
					solver = (sn_solver)k;
				}
			}
			if (solver == SN_SOLVER_COUNT)
			{
				fprintf(stderr, "sinew-demo: unknown solver '%s' (pgs, tgs, xpbd or direct)\n", argv[i]);
				return 2;
			}
		}
		else
		{
			fprintf(stderr, "usage: sinew-demo [--seconds S] [--solver tgs|pgs|xpbd|direct]\n");
			return 2;
		}
	}
	if (!(seconds > 0.0 && seconds < 3600.0))
	{
		fprintf(stderr, "sinew-demo: --seconds must be in (0, 3600)\n");
		return 2;
	}

	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	sn_world* world;
	if (sn_world_create(&wd, &world) != SN_ERR_OK)
	{
		fprintf(stderr, "sinew-demo: could not create the world\n");
		return 1;
	}
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);

	// Pendulum: bob at (1, 0, 0) swinging about the y axis through the origin.
	sn_body_id bob = add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.02));
	sn_hinge_joint_def pend = sn_default_hinge_joint_def();
	pend.base.body_b = bob;
	pend.base.frame_a.q = x_to_y;
	pend.base.frame_b.q = x_to_y;
	pend.base.frame_b.p = sn_v3(-1, 0, 0);
	sn_joint_id pivot;
	check(world, sn_create_hinge_joint(world, &pend, &pivot), "create pendulum");

	// Chain of ten 0.5 m boxes along +x from (0, 2, 0).
	sn_body_id chain[10];
	sn_joint_id links[10];
	for (int i = 0; i < 10; ++i)
	{
		chain[i] = add_body(world, sn_v3(0.25 + 0.5 * i, 2, 0), 1.0, sn_inertia_box(1.0, sn_v3(0.25, 0.05, 0.05)));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		hd.base.body_a = i > 0 ? chain[i - 1] : (sn_body_id){ 0, 0 };
		hd.base.frame_a.p = i > 0 ? sn_v3(0.25, 0, 0) : sn_v3(0, 2, 0);
		hd.base.body_b = chain[i];
		hd.base.frame_b.p = sn_v3(-0.25, 0, 0);
		hd.base.frame_a.q = x_to_y;
		hd.base.frame_b.q = x_to_y;
		check(world, sn_create_hinge_joint(world, &hd, links + i), "create chain");
	}

	// Winch drum: 10 kg cylinder about world x at (0, 4, 0), hinge motor 20 rad/s capped at 5 N*m.
	sn_body_id drum = add_body(world, sn_v3(0, 4, 0), 10.0, sn_inertia_cylinder(10.0, 0.2, 0.3));
	sn_hinge_joint_def wd_hinge = sn_default_hinge_joint_def();
	wd_hinge.base.body_b = drum;
	wd_hinge.base.frame_a.p = sn_v3(0, 4, 0);
	wd_hinge.motor.enabled = true;
	wd_hinge.motor.speed = 20.0;
	wd_hinge.motor.max_force = 5.0;
	sn_joint_id winch;
	check(world, sn_create_hinge_joint(world, &wd_hinge, &winch), "create winch");

	// Hook: a fixed joint from the world to a 10 kg block, breaking above 150 N.
	sn_body_id block = add_body(world, sn_v3(0, 6, -0.5), 10.0, sn_inertia_box(10.0, sn_v3(0.1, 0.1, 0.1)));
	sn_fixed_joint_def hook_def = sn_default_fixed_joint_def();
	hook_def.base.body_b = block;
	hook_def.base.frame_a.p = sn_v3(0, 6, 0);
	hook_def.base.frame_b.p = sn_v3(0, 0, 0.5);
	hook_def.base.break_force = 150.0;
	sn_joint_id hook;
	check(world, sn_create_fixed_joint(world, &hook_def, &hook), "create hook");

	printf("Sinew %s demo: %s solver, dt = %g s, %g s simulated\n", sn_version_string(), sn_solver_name(solver),
		   wd.time_step, seconds);
	printf("%7s | %22s | %21s | %19s | %s\n", "t (s)", "pendulum from vertical", "chain worst gap (mm)",
		   "winch speed (rad/s)", "hook force (N)");
	int steps = (int)(seconds / wd.time_step + 0.5);
	int every = (int)(0.25 / wd.time_step + 0.5);
	bool loaded = false;
	for (int i = 1; i <= steps; ++i)
	{
		if (!loaded && sn_world_get_time(world) >= 1.0)
		{
			check(world,
				  sn_body_set_mass_properties(world, block, 20.0, sn_inertia_box(20.0, sn_v3(0.1, 0.1, 0.1)),
											  sn_v3(0, 0, 0)),
				  "load the hook");
			loaded = true;
		}
		check(world, sn_world_step(world), "step");
		int broke = 0;
		const sn_joint_break_event* events = sn_world_get_break_events(world, &broke);
		for (int e = 0; e < broke; ++e)
		{
			printf("        event: joint %s broke at t = %.3f s under %.1f N\n",
				   sn_joint_type_name(sn_joint_get_type(world, events[e].joint)), events[e].time,
				   sn_length(events[e].force));
		}
		if (i % every != 0)
		{
			continue;
		}
		double gap = 0.0;
		for (int k = 1; k < 10; ++k)
		{
			sn_vec3 a = sn_transform_point(sn_body_get_pose(world, chain[k - 1]), sn_v3(0.25, 0, 0));
			sn_vec3 b = sn_transform_point(sn_body_get_pose(world, chain[k]), sn_v3(-0.25, 0, 0));
			double d = sn_length(sn_sub(a, b));
			gap = d > gap ? d : gap;
		}
		sn_vec3 force;
		sn_joint_get_reaction(world, hook, &force, NULL);
		printf("%7.2f | %22.2f | %21.4f | %19.3f | %6.1f%s\n", sn_world_get_time(world),
			   sn_joint_get_coordinate(world, pivot, SN_AXIS_RX) * 180.0 / SN_PI - 90.0, gap * 1000.0,
			   sn_joint_get_coordinate_speed(world, winch, SN_AXIS_RX), sn_length(force),
			   sn_joint_is_broken(world, hook) ? " (broken)" : "");
	}
	sn_world_destroy(world);
	return 0;
}
