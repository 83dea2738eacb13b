// The demo world: a small scene of maximal-coordinate bodies and joints that keeps moving in real time.
//   - a 1 m pendulum released at 90 degrees (hinge about world y)
//   - a hanging chain of six hinged links
//   - a wheel driven by a velocity motor at 1 rev/s with a torque cap
//   - a block on a prismatic spring that oscillates about its target
#include "demo_world.h"

#include "log.h"
#include "server.h"
#include "world_host.h"

#include "sinew/sinew.h"

#include <math.h>
#include <stdio.h>

// Hinge frames turn the joint x axis onto world y.
static sn_quat x_to_y(void)
{
	return sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
}

static sn_error add_body(sn_world* w, sn_vec3 p, double mass, sn_vec3 half, sn_body_id* out)
{
	sn_body_def b = sn_default_body_def();
	b.pose.p = p;
	b.mass = mass;
	b.inertia = sn_inertia_box(mass, half);
	return sn_create_body(w, &b, out);
}

static sn_error build(sn_world* w)
{
	sn_error err;
	// Pendulum: pivot at (0, 0, 2), bob 1 m along +x.
	sn_body_id bob;
	if ((err = add_body(w, sn_v3(1, 0, 2), 1.0, sn_v3(0.05, 0.05, 0.05), &bob)) != SN_ERR_OK)
		return err;
	sn_hinge_joint_def pivot = sn_default_hinge_joint_def();
	pivot.base.body_b = bob;
	pivot.base.frame_a.p = sn_v3(0, 0, 2);
	pivot.base.frame_a.q = x_to_y();
	pivot.base.frame_b.p = sn_v3(-1, 0, 0);
	pivot.base.frame_b.q = x_to_y();
	sn_joint_id joint;
	if ((err = sn_create_hinge_joint(w, &pivot, &joint)) != SN_ERR_OK)
		return err;
	// Chain: six 0.3 m links from (2, 0, 2) along +x.
	sn_body_id previous = { 0, 0 };
	for (int i = 0; i < 6; ++i)
	{
		sn_body_id link;
		if ((err = add_body(w, sn_v3(2.15 + 0.3 * i, 0, 2), 0.5, sn_v3(0.15, 0.03, 0.03), &link)) != SN_ERR_OK)
			return err;
		sn_hinge_joint_def h = sn_default_hinge_joint_def();
		h.base.body_a = previous;
		h.base.frame_a.p = i == 0 ? sn_v3(2, 0, 2) : sn_v3(0.15, 0, 0);
		h.base.frame_a.q = x_to_y();
		h.base.body_b = link;
		h.base.frame_b.p = sn_v3(-0.15, 0, 0);
		h.base.frame_b.q = x_to_y();
		if ((err = sn_create_hinge_joint(w, &h, &joint)) != SN_ERR_OK)
			return err;
		previous = link;
	}
	// Wheel on an axle along world y at (-1, 0, 1), motor at 2 pi rad/s, at most 5 N*m.
	sn_body_id wheel;
	sn_body_def wd = sn_default_body_def();
	wd.pose.p = sn_v3(-1, 0, 1);
	wd.mass = 2.0;
	wd.inertia = sn_inertia_cylinder(2.0, 0.3, 0.05);
	if ((err = sn_create_body(w, &wd, &wheel)) != SN_ERR_OK)
		return err;
	sn_hinge_joint_def axle = sn_default_hinge_joint_def();
	axle.base.body_b = wheel;
	axle.base.frame_a.p = sn_v3(-1, 0, 1);
	axle.base.frame_a.q = x_to_y();
	axle.base.frame_b.q = x_to_y();
	axle.motor.enabled = true;
	axle.motor.speed = 2.0 * SN_PI;
	axle.motor.max_force = 5.0;
	if ((err = sn_create_hinge_joint(w, &axle, &joint)) != SN_ERR_OK)
		return err;
	// Block on a vertical prismatic spring (2 Hz, lightly damped), released 0.2 m above its target.
	sn_body_id block;
	if ((err = add_body(w, sn_v3(-2.5, 0, 1.2), 1.0, sn_v3(0.1, 0.1, 0.1), &block)) != SN_ERR_OK)
		return err;
	sn_prismatic_joint_def slide = sn_default_prismatic_joint_def();
	slide.base.body_b = block;
	slide.base.frame_a.p = sn_v3(-2.5, 0, 1.0);
	slide.base.frame_a.q = sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI); // x onto z
	slide.base.frame_b.q = slide.base.frame_a.q;
	slide.spring.enabled = true;
	slide.spring.target = 0.0;
	slide.spring.soft = sn_soft_frequency(2.0, 0.05);
	return sn_create_prismatic_joint(w, &slide, &joint);
}

int32_t demo_world_create(server* srv)
{
	sn_world_def def = sn_default_world_def();
	def.id_tag = ++srv->next_id_tag;
	sn_world* world = NULL;
	sn_error err = sn_world_create(&def, &world);
	if (err == SN_ERR_OK)
	{
		err = build(world);
	}
	if (err != SN_ERR_OK)
	{
		log_error("could not build the demo world", "error=%s detail=\"%s\"", sn_error_name(err),
				  world != NULL ? sn_world_last_error_detail(world) : "");
		sn_world_destroy(world);
		return err;
	}
	world_host* host = NULL;
	char detail[256];
	int32_t code = world_host_create(srv, world, "demo", 0, true, &host, detail, sizeof(detail));
	if (code != 0)
	{
		log_error("could not host the demo world", "detail=\"%s\"", detail);
		return code;
	}
	world_host_set_time(host, sinew_v1_TimeMode_TIME_REALTIME, 1.0, host->lockstep_timeout_ms);
	return 0;
}
