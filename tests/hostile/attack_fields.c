// Extreme numbers in every numeric field and invalid UTF-8 in every string field of every command (the
// fields found from the schema's descriptors, mutate.h), each on an otherwise valid command against a
// world with bodies, a joint, an articulation and a mimic joint. Every message gets a reply; a refused
// command changes nothing (the world's object counts are checked after each command's mutations, and
// what a command created is destroyed again); invalid strings are refused with BAD_MESSAGE naming the
// field. Then the pacing extremes: real-time worlds of the smallest and largest time step and rate.
#include "hostile.h"
#include "mutate.h"

#include "wire.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct scene
{
	uint64_t world;
	uint64_t body_a;
	uint64_t body_b;
	uint64_t joint;
	uint64_t artic;
	uint64_t mimic;
	int bodies;
	int joints;
	int articulations;
	int shapes;
	uint8_t mesh[32]; // the hash of a triangle-mesh shape's mesh (GetMesh)
	uint64_t tick;    // lockstep
} scene;

static const char urdf_text[] =
	"<robot name=\"h\">"
	"<link name=\"base\"><inertial><mass value=\"1\"/>"
	"<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
	"<link name=\"arm\"><inertial><mass value=\"1\"/>"
	"<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
	"<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
	"<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>"
	"</robot>";

static sinew_v1_ClientMessage command(pb_size_t tag)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = tag;
	return m;
}

static int32_t request(snc_client* c, sinew_v1_ClientMessage* m, snc_message* reply, const char* what)
{
	int err = snc_request(c, m, reply, 30000);
	if (err != 0)
	{
		hostile_fail("fields", what, "no reply: %s", snc_error_string(err));
	}
	return snc_reply_code(reply);
}

static uint64_t must_create(snc_client* c, sinew_v1_ClientMessage* m, const char* what)
{
	snc_message reply;
	int32_t code = request(c, m, &reply, what);
	uint64_t id = reply.msg.message.reply.result.created.id;
	if (code != 0)
	{
		hostile_fail("fields", what, "setup refused: %d %s", (int)code, snc_reply_text(&reply));
	}
	snc_message_free(&reply);
	return id;
}

static sinew_v1_Transform at(double x, double y, double z)
{
	sinew_v1_Transform t = sinew_v1_Transform_init_zero;
	t.has_position = true;
	t.position.x = x;
	t.position.y = y;
	t.position.z = z;
	return t;
}

static sinew_v1_LinkDef scene_links[3];
static growing_field scene_links_field;
static wire_bytes scene_urdf;
static wire_bytes scene_asset = { (const uint8_t*)"solid x\nendsolid x\n", 20 };

static void set_links(sinew_v1_CreateArticulation* a)
{
	for (int i = 0; i < 3; ++i)
	{
		sinew_v1_LinkDef l = sinew_v1_LinkDef_init_zero;
		l.parent = i - 1;
		l.joint_type = i == 0 ? sinew_v1_LinkJointType_LINK_FIXED : sinew_v1_LinkJointType_LINK_REVOLUTE;
		l.has_mass = true;
		l.mass = 1.0;
		if (i > 0)
		{
			l.has_parent_frame = true;
			l.parent_frame = at(0.5, 0, 0);
		}
		scene_links[i] = l;
	}
	scene_links_field.message = &sinew_v1_LinkDef_msg;
	scene_links_field.prefix = scene_links;
	scene_links_field.prefix_count = 3;
	scene_links_field.element_size = sizeof(sinew_v1_LinkDef);
	scene_links_field.element = NULL;
	a->links.funcs.encode = encode_growing;
	a->links.arg = &scene_links_field;
}

static void world_counts(snc_client* c, uint64_t world, int* bodies, int* joints, int* articulations, int* shapes)
{
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	request(c, &m, &reply, "list_worlds");
	*bodies = *joints = *articulations = *shapes = -1;
	for (int i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			*bodies = (int)reply.worlds[i].body_count;
			*joints = (int)reply.worlds[i].joint_count;
			*articulations = (int)reply.worlds[i].articulation_count;
			*shapes = (int)reply.worlds[i].shape_count;
		}
	}
	snc_message_free(&reply);
}

static scene make_scene(snc_client* c, const char* name)
{
	scene s;
	memset(&s, 0, sizeof(s));
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "%s", name);
	s.world = must_create(c, &m, "create the scene's world");
	for (int i = 0; i < 2; ++i)
	{
		m = command(sinew_v1_ClientMessage_create_body_tag);
		m.command.create_body.world_id = s.world;
		m.command.create_body.has_body = true;
		m.command.create_body.body.has_pose = true;
		m.command.create_body.body.pose = at(i, 0, 0);
		uint64_t id = must_create(c, &m, "create a body");
		*(i == 0 ? &s.body_a : &s.body_b) = id;
	}
	m = command(sinew_v1_ClientMessage_create_joint_tag);
	m.command.create_joint.world_id = s.world;
	m.command.create_joint.has_base = true;
	m.command.create_joint.base.body_a = s.body_a;
	m.command.create_joint.base.body_b = s.body_b;
	m.command.create_joint.base.has_frame_a = true;
	m.command.create_joint.base.frame_a = at(0.5, 0, 0);
	m.command.create_joint.base.has_frame_b = true;
	m.command.create_joint.base.frame_b = at(-0.5, 0, 0);
	m.command.create_joint.which_type = sinew_v1_CreateJoint_hinge_tag;
	s.joint = must_create(c, &m, "create a joint");
	m = command(sinew_v1_ClientMessage_create_articulation_tag);
	m.command.create_articulation.world_id = s.world;
	set_links(&m.command.create_articulation);
	s.artic = must_create(c, &m, "create an articulation");
	m = command(sinew_v1_ClientMessage_create_mimic_tag);
	m.command.create_mimic.world_id = s.world;
	m.command.create_mimic.has_mimic = true;
	m.command.create_mimic.mimic.articulation_id = s.artic;
	m.command.create_mimic.mimic.dofs_count = 2;
	m.command.create_mimic.mimic.dofs[1] = 1;
	m.command.create_mimic.mimic.gearing_count = 2;
	m.command.create_mimic.mimic.gearing[0] = 1;
	m.command.create_mimic.mimic.gearing[1] = -1;
	s.mimic = must_create(c, &m, "create a mimic joint");
	// A ground mesh of the world's own far below everything, for GetMesh to name.
	static const double vertices[] = { -1, -1, -50, 1, -1, -50, 1, 1, -50 };
	static const uint32_t triangle[] = { 0, 1, 2 };
	snc_shape ground = snc_shape_mesh(vertices, 9, triangle, 3);
	snc_message reply;
	if (snc_create_shape(c, s.world, 0, 0, 0, &ground, &reply, 30000) != 0 || snc_reply_code(&reply) != 0)
	{
		hostile_fail("fields", "create a mesh shape", "setup refused: %s", snc_reply_text(&reply));
	}
	snc_message_free(&reply);
	m = command(sinew_v1_ClientMessage_describe_world_tag);
	m.command.describe_world.world_id = s.world;
	request(c, &m, &reply, "describe the scene");
	for (int i = 0; i < reply.shape_info_count; ++i)
	{
		if (reply.shape_infos[i].has_mesh)
		{
			memcpy(s.mesh, reply.shape_infos[i].mesh.hash.bytes, 32);
		}
	}
	snc_message_free(&reply);
	world_counts(c, s.world, &s.bodies, &s.joints, &s.articulations, &s.shapes);
	return s;
}

static void destroy_world(snc_client* c, uint64_t world)
{
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = world;
	snc_message reply;
	request(c, &m, &reply, "destroy_world");
	snc_message_free(&reply);
}

// A valid command of each kind against the scene (its leaves are then mutated one at a time).
static sinew_v1_ClientMessage template_for(pb_size_t tag, const scene* s)
{
	sinew_v1_ClientMessage m = command(tag);
	switch (tag)
	{
		case sinew_v1_ClientMessage_create_world_tag:
			snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "n");
			break;
		case sinew_v1_ClientMessage_clone_world_tag:
			m.command.clone_world.world_id = s->world;
			break;
		case sinew_v1_ClientMessage_configure_world_tag:
			m.command.configure_world.world_id = s->world;
			break;
		case sinew_v1_ClientMessage_join_world_tag:
			m.command.join_world.world_id = s->world;
			m.command.join_world.role = sinew_v1_Role_ROLE_OBSERVER;
			break;
		case sinew_v1_ClientMessage_set_time_mode_tag:
			m.command.set_time_mode.world_id = s->world;
			m.command.set_time_mode.has_time = true;
			break;
		case sinew_v1_ClientMessage_step_tag:
			m.command.step.world_id = s->world;
			m.command.step.count = 1;
			break;
		case sinew_v1_ClientMessage_create_body_tag:
			m.command.create_body.world_id = s->world;
			break;
		case sinew_v1_ClientMessage_create_joint_tag:
			m.command.create_joint.world_id = s->world;
			m.command.create_joint.has_base = true;
			m.command.create_joint.base.body_a = s->body_a;
			m.command.create_joint.base.body_b = s->body_b;
			m.command.create_joint.which_type = sinew_v1_CreateJoint_hinge_tag;
			break;
		case sinew_v1_ClientMessage_create_articulation_tag:
			m.command.create_articulation.world_id = s->world;
			set_links(&m.command.create_articulation);
			break;
		case sinew_v1_ClientMessage_create_mimic_tag:
			m.command.create_mimic.world_id = s->world;
			m.command.create_mimic.has_mimic = true;
			m.command.create_mimic.mimic.articulation_id = s->artic;
			m.command.create_mimic.mimic.dofs_count = 2;
			m.command.create_mimic.mimic.dofs[1] = 1;
			m.command.create_mimic.mimic.gearing_count = 2;
			m.command.create_mimic.mimic.gearing[1] = -1;
			break;
		case sinew_v1_ClientMessage_load_urdf_tag:
			m.command.load_urdf.world_id = s->world;
			scene_urdf.data = (const uint8_t*)urdf_text;
			scene_urdf.size = sizeof(urdf_text) - 1;
			m.command.load_urdf.urdf.funcs.encode = encode_bytes_field;
			m.command.load_urdf.urdf.arg = &scene_urdf;
			break;
		case sinew_v1_ClientMessage_set_drive_targets_tag:
		case sinew_v1_ClientMessage_lockstep_input_tag:
		{
			sinew_v1_SetDriveTargets* t = tag == sinew_v1_ClientMessage_set_drive_targets_tag
				? &m.command.set_drive_targets
				: &m.command.lockstep_input.targets;
			t->world_id = s->world;
			t->joints_count = 1;
			t->joints[0].joint_id = s->joint;
			t->joints[0].axis = sinew_v1_Axis_AXIS_RX;
			t->has_articulation = true;
			t->articulation.articulation_id = s->artic;
			t->articulation.dofs_count = 1;
			t->articulation.positions_count = 1;
			if (tag == sinew_v1_ClientMessage_lockstep_input_tag)
			{
				m.command.lockstep_input.world_id = s->world;
				m.command.lockstep_input.tick = s->tick;
				m.command.lockstep_input.has_targets = true;
				m.command.lockstep_input.has_forces = true;
				m.command.lockstep_input.forces.bodies_count = 1;
				m.command.lockstep_input.forces.bodies[0].body_id = s->body_b;
			}
			break;
		}
		case sinew_v1_ClientMessage_set_joint_state_tag:
			m.command.set_joint_state.world_id = s->world;
			m.command.set_joint_state.articulation_id = s->artic;
			m.command.set_joint_state.positions_count = 2;
			m.command.set_joint_state.velocities_count = 2;
			break;
		case sinew_v1_ClientMessage_set_body_state_tag:
			m.command.set_body_state.world_id = s->world;
			m.command.set_body_state.body_id = s->body_b;
			break;
		case sinew_v1_ClientMessage_apply_forces_tag:
			m.command.apply_forces.world_id = s->world;
			m.command.apply_forces.bodies_count = 1;
			m.command.apply_forces.bodies[0].body_id = s->body_b;
			m.command.apply_forces.links_count = 1;
			m.command.apply_forces.links[0].articulation_id = s->artic;
			m.command.apply_forces.links[0].link = 1;
			m.command.apply_forces.dofs_count = 1;
			m.command.apply_forces.dofs[0].articulation_id = s->artic;
			break;
		case sinew_v1_ClientMessage_subscribe_tag:
			m.command.subscribe.world_id = s->world;
			m.command.subscribe.rate_hz = 30;
			break;
		case sinew_v1_ClientMessage_get_state_tag:
			m.command.get_state.world_id = s->world;
			break;
		case sinew_v1_ClientMessage_snapshot_tag:
			m.command.snapshot.world_id = s->world;
			break;
		case sinew_v1_ClientMessage_describe_world_tag:
			m.command.describe_world.world_id = s->world;
			m.command.describe_world.articulation_id = s->artic;
			break;
		case sinew_v1_ClientMessage_create_shape_tag:
			m.command.create_shape.world_id = s->world;
			m.command.create_shape.body_id = s->body_b;
			m.command.create_shape.has_shape = true;
			m.command.create_shape.shape.which_geometry = sinew_v1_ShapeDef_sphere_tag;
			m.command.create_shape.shape.geometry.sphere.radius = 0.1;
			break;
		case sinew_v1_ClientMessage_get_mesh_tag:
			m.command.get_mesh.hash.size = 32;
			memcpy(m.command.get_mesh.hash.bytes, s->mesh, 32);
			break;
		case sinew_v1_ClientMessage_put_asset_tag:
			m.command.put_asset.data.funcs.encode = encode_bytes_field;
			m.command.put_asset.data.arg = &scene_asset;
			break;
		default:
			// The destroy commands, leave_world, restore, reset and unsubscribe: only ids to mutate, and
			// none of them names a live object (nothing of the scene is ever destroyed by a mutation).
			break;
	}
	return m;
}

// What a successful mutated command created is destroyed again, so the scene keeps its counts.
static void undo(snc_client* c, pb_size_t tag, const scene* s, const snc_message* reply)
{
	uint64_t id = reply->msg.message.reply.which_result == sinew_v1_Reply_created_tag
		? reply->msg.message.reply.result.created.id
		: 0;
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	switch (tag)
	{
		case sinew_v1_ClientMessage_create_world_tag:
		case sinew_v1_ClientMessage_clone_world_tag:
			m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
			m.command.destroy_world.world_id = id;
			break;
		case sinew_v1_ClientMessage_create_body_tag:
			m.which_command = sinew_v1_ClientMessage_destroy_body_tag;
			m.command.destroy_body.world_id = s->world;
			m.command.destroy_body.body_id = id;
			break;
		case sinew_v1_ClientMessage_create_joint_tag:
			m.which_command = sinew_v1_ClientMessage_destroy_joint_tag;
			m.command.destroy_joint.world_id = s->world;
			m.command.destroy_joint.joint_id = id;
			break;
		case sinew_v1_ClientMessage_create_articulation_tag:
		case sinew_v1_ClientMessage_load_urdf_tag:
			m.which_command = sinew_v1_ClientMessage_destroy_articulation_tag;
			m.command.destroy_articulation.world_id = s->world;
			m.command.destroy_articulation.articulation_id =
				tag == sinew_v1_ClientMessage_load_urdf_tag ? reply->msg.message.reply.result.urdf.articulation_id : id;
			break;
		case sinew_v1_ClientMessage_create_shape_tag:
			m.which_command = sinew_v1_ClientMessage_destroy_shape_tag;
			m.command.destroy_shape.world_id = s->world;
			m.command.destroy_shape.shape_id = id;
			break;
		case sinew_v1_ClientMessage_create_mimic_tag:
			m.which_command = sinew_v1_ClientMessage_destroy_mimic_tag;
			m.command.destroy_mimic.world_id = s->world;
			m.command.destroy_mimic.mimic_id = id;
			break;
		case sinew_v1_ClientMessage_subscribe_tag:
			m.which_command = sinew_v1_ClientMessage_unsubscribe_tag;
			m.command.unsubscribe.subscription_id = id;
			break;
		default:
			return;
	}
	snc_message r;
	if (request(c, &m, &r, "undo") != 0)
	{
		hostile_fail("fields", "undo", "could not destroy what a mutated command created: %s", snc_reply_text(&r));
	}
	snc_message_free(&r);
}

// ---- values -------------------------------------------------------------------------------------------

static const double doubles[] = {
	-0.0, 5e-324, 1e-308, 1e-300, 1e154, 1e308, DBL_MAX, -DBL_MAX, -1e308, 1.0000001e9, -1.0, NAN, INFINITY, -INFINITY,
};
static const int64_t signed_values[] = { -1, INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, (int64_t)1 << 53, 99 };
static const uint64_t unsigned_values[] = { UINT64_MAX,        (uint64_t)1 << 32, (uint64_t)1 << 31,
											(uint64_t)1 << 63, UINT32_MAX,        (uint64_t)1 << 53 };

// Set a numeric leaf to value number k; false when k is past the last value of its type.
static bool set_value(const leaf* l, void* p, int k)
{
	switch (PB_LTYPE(l->type))
	{
		case PB_LTYPE_FIXED64:
			if (k >= (int)(sizeof(doubles) / sizeof(doubles[0])))
			{
				return false;
			}
			memcpy(p, doubles + k, sizeof(double));
			return true;
		case PB_LTYPE_FIXED32:
		{
			static const float floats[] = { FLT_MAX, -FLT_MAX, 1e-45f, NAN, INFINITY, -INFINITY };
			if (k >= (int)(sizeof(floats) / sizeof(floats[0])))
			{
				return false;
			}
			memcpy(p, floats + k, sizeof(float));
			return true;
		}
		case PB_LTYPE_BOOL:
			if (k > 0)
			{
				return false;
			}
			*(bool*)p = true;
			return true;
		case PB_LTYPE_VARINT:
		case PB_LTYPE_SVARINT:
		{
			if (k >= (int)(sizeof(signed_values) / sizeof(signed_values[0])))
			{
				return false;
			}
			int64_t v = signed_values[k];
			if (l->data_size == 8)
			{
				memcpy(p, &v, 8);
			}
			else
			{
				int32_t w = (int32_t)(uint32_t)(uint64_t)v; // enums and int32: the low 32 bits
				memcpy(p, &w, 4);
			}
			return true;
		}
		case PB_LTYPE_UVARINT:
		{
			if (k >= (int)(sizeof(unsigned_values) / sizeof(unsigned_values[0])))
			{
				return false;
			}
			uint64_t v = unsigned_values[k];
			if (l->data_size == 8)
			{
				memcpy(p, &v, 8);
			}
			else
			{
				uint32_t w = (uint32_t)v;
				memcpy(p, &w, 4);
			}
			return true;
		}
		default:
			return false;
	}
}

// The commands whose fields are attacked (the handshake has its own family).
static const pb_size_t commands[] = {
	sinew_v1_ClientMessage_create_world_tag,
	sinew_v1_ClientMessage_destroy_world_tag,
	sinew_v1_ClientMessage_clone_world_tag,
	sinew_v1_ClientMessage_configure_world_tag,
	sinew_v1_ClientMessage_join_world_tag,
	sinew_v1_ClientMessage_leave_world_tag,
	sinew_v1_ClientMessage_set_time_mode_tag,
	sinew_v1_ClientMessage_step_tag,
	sinew_v1_ClientMessage_create_body_tag,
	sinew_v1_ClientMessage_destroy_body_tag,
	sinew_v1_ClientMessage_create_joint_tag,
	sinew_v1_ClientMessage_destroy_joint_tag,
	sinew_v1_ClientMessage_create_articulation_tag,
	sinew_v1_ClientMessage_destroy_articulation_tag,
	sinew_v1_ClientMessage_create_mimic_tag,
	sinew_v1_ClientMessage_destroy_mimic_tag,
	sinew_v1_ClientMessage_load_urdf_tag,
	sinew_v1_ClientMessage_set_drive_targets_tag,
	sinew_v1_ClientMessage_set_joint_state_tag,
	sinew_v1_ClientMessage_set_body_state_tag,
	sinew_v1_ClientMessage_apply_forces_tag,
	sinew_v1_ClientMessage_lockstep_input_tag,
	sinew_v1_ClientMessage_subscribe_tag,
	sinew_v1_ClientMessage_unsubscribe_tag,
	sinew_v1_ClientMessage_get_state_tag,
	sinew_v1_ClientMessage_snapshot_tag,
	sinew_v1_ClientMessage_restore_tag,
	sinew_v1_ClientMessage_reset_tag,
	sinew_v1_ClientMessage_describe_world_tag,
	sinew_v1_ClientMessage_create_shape_tag,
	sinew_v1_ClientMessage_destroy_shape_tag,
	sinew_v1_ClientMessage_find_assets_tag,
	sinew_v1_ClientMessage_put_asset_tag,
	sinew_v1_ClientMessage_get_mesh_tag,
};

enum
{
	COMMAND_COUNT = (int)(sizeof(commands) / sizeof(commands[0])),
	MAX_LEAVES = 4096
};

static snc_client* attacker(const char* name)
{
	snc_options o = snc_default_options();
	o.port = target.tcp_port;
	o.timeout_ms = 10000;
	snc_client* c = NULL;
	if (snc_connect(&o, &c) != 0 || snc_handshake(c, name, NULL, sinew_v1_Role_ROLE_CONTROLLER, NULL) != 0)
	{
		hostile_fail("fields", name, "cannot connect");
	}
	return c;
}

// Lockstep inputs need a world in lockstep with this client as its controller.
static void prepare_lockstep(snc_client* c, scene* s)
{
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_set_time_mode_tag);
	m.command.set_time_mode.world_id = s->world;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = sinew_v1_TimeMode_TIME_LOCKSTEP;
	snc_message reply;
	request(c, &m, &reply, "lockstep mode");
	snc_message_free(&reply);
	m = command(sinew_v1_ClientMessage_join_world_tag);
	m.command.join_world.world_id = s->world;
	m.command.join_world.role = sinew_v1_Role_ROLE_CONTROLLER;
	request(c, &m, &reply, "join as controller");
	snc_message_free(&reply);
}

static void check_counts(snc_client* c, const scene* s, const char* what)
{
	int bodies, joints, articulations, shapes;
	world_counts(c, s->world, &bodies, &joints, &articulations, &shapes);
	if (bodies != s->bodies || joints != s->joints || articulations != s->articulations || shapes != s->shapes)
	{
		hostile_fail("fields", what,
					 "the world changed: %d bodies, %d joints, %d articulations, %d shapes (was %d, %d, %d, %d)",
					 bodies, joints, articulations, shapes, s->bodies, s->joints, s->articulations, s->shapes);
	}
}

// One real-time world of extreme pacing, alive for a while: the bystanders must not notice.
static void pacing_case(family* f, snc_client* c, const char* name, double time_step, sinew_v1_TimeMode mode,
						double rate, bool accepted)
{
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_create_world_tag);
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_time_step = true;
	m.command.create_world.settings.time_step = time_step;
	m.command.create_world.has_time = true;
	m.command.create_world.time.mode = mode;
	m.command.create_world.time.has_rate = true;
	m.command.create_world.time.rate = rate;
	snc_message reply;
	int32_t code = request(c, &m, &reply, name);
	uint64_t world = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	if ((code == 0) != accepted)
	{
		hostile_fail(f->name, name, "answered %d, expected it %s", (int)code, accepted ? "accepted" : "refused");
	}
	if (code == 0)
	{
		double end = now_ms() + 500;
		while (now_ms() < end)
		{
			note_ping_under_load(f, name, bystander_ping_ms(bystander_tcp));
			sleep_ms(20);
		}
		destroy_world(c, world);
	}
	check_alive(f, name);
}

void attack_numbers(void)
{
	family f;
	family_begin(&f, "numbers");
	snc_client* c = attacker("numbers");
	static leaf leaves[MAX_LEAVES];
	int total_leaves = 0, messages = 0, accepted = 0;
	for (int i = 0; i < COMMAND_COUNT; ++i)
	{
		pb_size_t tag = commands[i];
		int n = collect_leaves(tag, false, leaves, MAX_LEAVES);
		if (n > MAX_LEAVES)
		{
			hostile_fail(f.name, "collect", "more than %d leaves", MAX_LEAVES);
		}
		total_leaves += n;
		if (getenv("HOSTILE_VERBOSE") != NULL)
		{
			printf("HOSTILE numbers: command %u, %d fields\n", (unsigned)tag, n);
		}
		scene s = make_scene(c, "numbers");
		if (tag == sinew_v1_ClientMessage_lockstep_input_tag)
		{
			prepare_lockstep(c, &s);
		}
		for (int k = 0; k < n; ++k)
		{
			for (int v = 0;; ++v)
			{
				sinew_v1_ClientMessage m = template_for(tag, &s);
				void* p = leaf_apply(&m, leaves + k);
				if (!set_value(leaves + k, p, v))
				{
					break;
				}
				char what[160];
				leaf_name(leaves + k, what, sizeof(what));
				snc_message reply;
				int32_t code = request(c, &m, &reply, what);
				messages += 1;
				if (code == 0)
				{
					accepted += 1;
					if (reply.msg.message.reply.which_result == sinew_v1_Reply_step_tag)
					{
						s.tick = reply.msg.message.reply.result.step.step_count;
					}
					undo(c, tag, &s, &reply);
				}
				snc_message_free(&reply);
			}
		}
		char what[64];
		snprintf(what, sizeof(what), "every numeric field of command %u", (unsigned)tag);
		check_counts(c, &s, what);
		destroy_world(c, s.world);
		check_alive(&f, what);
	}
	// Pacing at the edges of what validation lets through, and just past them.
	pacing_case(&f, c, "real time, time step 1e-300 s, rate 1000", 1e-300, sinew_v1_TimeMode_TIME_REALTIME, 1000.0,
				true);
	pacing_case(&f, c, "real time, time step 1 s, rate 0.001", 1.0, sinew_v1_TimeMode_TIME_REALTIME, 1e-3, true);
	pacing_case(&f, c, "real time, time step 5e-324 s, rate 0.001", 5e-324, sinew_v1_TimeMode_TIME_REALTIME, 1e-3,
				true);
	pacing_case(&f, c, "as fast as possible, time step 1e-300 s", 1e-300, sinew_v1_TimeMode_TIME_FAST, 1.0, true);
	pacing_case(&f, c, "real time, rate 1e-300", 0.001, sinew_v1_TimeMode_TIME_REALTIME, 1e-300, false);
	pacing_case(&f, c, "real time, rate 1e-21", 0.001, sinew_v1_TimeMode_TIME_REALTIME, 1e-21, false);
	pacing_case(&f, c, "real time, rate 1e300", 0.001, sinew_v1_TimeMode_TIME_REALTIME, 1e300, false);
	snc_close(c);
	figure("numeric_fields=%d numeric_messages=%d numeric_accepted=%d", total_leaves, messages, accepted);
	family_end(&f);
}

// ---- strings ------------------------------------------------------------------------------------------

typedef struct bad_string
{
	const char* name;
	const char* bytes;
	size_t size;
} bad_string;

#define BAD_(name, literal)                                                                                            \
	{                                                                                                                  \
		name, literal, sizeof(literal) - 1                                                                             \
	}
static const bad_string bad_strings[] = {
	BAD_("0xff", "\xff"),
	BAD_("lone continuation byte", "a\x80"),
	BAD_("overlong NUL", "\xc0\x80"),
	BAD_("overlong slash", "\xe0\x80\xaf"),
	BAD_("UTF-16 surrogate", "\xed\xa0\x80"),
	BAD_("above U+10FFFF", "\xf4\x90\x80\x80"),
	BAD_("five-byte form", "\xf8\x88\x80\x80\x80"),
	BAD_("cut in the middle", "ok\xe2\x82"),
	BAD_("bad second byte", "\xc3\x28"),
	BAD_("NUL inside", "a\0b"),
	BAD_("NUL then junk", "s3cret\0junk"),
};

enum
{
	BAD_COUNT = (int)(sizeof(bad_strings) / sizeof(bad_strings[0]))
};

// Encode m with the string leaf holding a marker of the bad string's length, then put the bad bytes in
// place of the marker (same length, so every enclosing length stays right).
static uint8_t* encode_with_bad_string(sinew_v1_ClientMessage* m, const leaf* l, const bad_string* b, size_t* size)
{
	char* field = leaf_apply(m, l);
	if (b->size + 1 > l->data_size) // a static string field: data_size is its capacity
	{
		return NULL;
	}
	memset(field, 0x7f, b->size); // DEL: valid UTF-8, and in no template
	field[b->size] = '\0';
	uint8_t* bytes = encode_tcp(m, size);
	for (size_t i = 0; i + b->size <= *size; ++i)
	{
		if (memcmp(bytes + i, field, b->size) == 0)
		{
			memcpy(bytes + i, b->bytes, b->size);
			return bytes;
		}
	}
	free(bytes);
	return NULL;
}

// Wait for the reply to request `id`; frames and events are dropped. Returns its code and detail.
static int32_t reply_of(snc_client* c, uint64_t id, char* detail, size_t cap, const char* what)
{
	double deadline = now_ms() + 30000;
	while (now_ms() < deadline)
	{
		snc_message m;
		int err = snc_receive(c, &m, 1000);
		if (err == -ETIMEDOUT)
		{
			continue;
		}
		if (err != 0)
		{
			hostile_fail("strings", what, "no reply: %s", snc_error_string(err));
		}
		bool ours = m.msg.which_message == sinew_v1_ServerMessage_reply_tag && m.msg.message.reply.request_id == id;
		int32_t code = snc_reply_code(&m);
		if (ours)
		{
			snprintf(detail, cap, "%s", snc_reply_text(&m));
		}
		snc_message_free(&m);
		if (ours)
		{
			return code;
		}
	}
	hostile_fail("strings", what, "no reply within 30 s");
}

// Every world name the server lists is valid UTF-8 (a client in another language must be able to read
// the list whatever anyone sent).
static void check_world_names(const char* what)
{
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	if (snc_request(bystander_tcp, &m, &reply, 20000) != 0)
	{
		hostile_fail("strings", what, "list_worlds failed");
	}
	for (int i = 0; i < reply.world_count; ++i)
	{
		const char* name = reply.worlds[i].name;
		if (wire_utf8_check((const uint8_t*)name, strlen(name)) != strlen(name))
		{
			hostile_fail("strings", what, "world %d's name is not valid UTF-8", i);
		}
	}
	snc_message_free(&reply);
}

void attack_strings(void)
{
	family f;
	family_begin(&f, "strings");
	snc_client* c = attacker("strings");
	static leaf leaves[MAX_LEAVES];
	int fields = 0, messages = 0;
	uint64_t next_id = 1000000;
	for (int i = 0; i < COMMAND_COUNT; ++i)
	{
		pb_size_t tag = commands[i];
		int n = collect_leaves(tag, true, leaves, MAX_LEAVES);
		if (n == 0)
		{
			continue;
		}
		fields += n;
		scene s = make_scene(c, "strings");
		for (int k = 0; k < n; ++k)
		{
			for (int b = 0; b < BAD_COUNT; ++b)
			{
				sinew_v1_ClientMessage m = template_for(tag, &s);
				m.request_id = next_id++;
				size_t size = 0;
				uint8_t* bytes = encode_with_bad_string(&m, leaves + k, bad_strings + b, &size);
				char what[200];
				leaf_name(leaves + k, what, sizeof(what));
				snprintf(what + strlen(what), sizeof(what) - strlen(what), " = %s", bad_strings[b].name);
				if (bytes == NULL)
				{
					hostile_fail(f.name, what, "could not build the message");
				}
				snc_send_raw(c, bytes, size);
				free(bytes);
				char detail[300];
				int32_t code = reply_of(c, m.request_id, detail, sizeof(detail), what);
				messages += 1;
				if (code != sinew_v1_ErrorCode_ERR_BAD_MESSAGE ||
					(strstr(detail, "UTF-8") == NULL && strstr(detail, "NUL") == NULL))
				{
					hostile_fail(f.name, what, "answered %d \"%s\", expected BAD_MESSAGE naming the string", (int)code,
								 detail);
				}
			}
		}
		check_counts(c, &s, "strings");
		destroy_world(c, s.world);
		char what[64];
		snprintf(what, sizeof(what), "every string field of command %u", (unsigned)tag);
		check_world_names(what);
		check_alive(&f, what);
	}
	// The handshake's strings, each on a new connection: refused and closed.
	static const pb_size_t handshake = sinew_v1_ClientMessage_handshake_tag;
	int n = collect_leaves(handshake, true, leaves, MAX_LEAVES);
	fields += n;
	for (int k = 0; k < n; ++k)
	{
		for (int b = 0; b < BAD_COUNT; ++b)
		{
			snc_options o = snc_default_options();
			o.port = target.tcp_port;
			snc_client* raw = NULL;
			if (snc_connect(&o, &raw) != 0)
			{
				hostile_fail(f.name, "connect", "cannot connect");
			}
			sinew_v1_ClientMessage m = command(handshake);
			m.request_id = 7;
			m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
			size_t size = 0;
			uint8_t* bytes = encode_with_bad_string(&m, leaves + k, bad_strings + b, &size);
			if (bytes == NULL)
			{
				hostile_fail(f.name, bad_strings[b].name, "could not build the handshake");
			}
			snc_send_raw(raw, bytes, size);
			free(bytes);
			messages += 1;
			// The server answers BAD_MESSAGE, then Closing, then closes.
			int32_t closing = 0;
			double deadline = now_ms() + HOSTILE_CLOSE_WAIT_MS;
			for (;;)
			{
				snc_message r;
				int err = snc_receive(raw, &r, 500);
				if (err == -ETIMEDOUT && now_ms() < deadline)
				{
					continue;
				}
				if (err != 0)
				{
					break;
				}
				if (r.msg.which_message == sinew_v1_ServerMessage_event_tag &&
					r.msg.message.event.which_event == sinew_v1_Event_closing_tag)
				{
					closing = r.msg.message.event.event.closing.status.code;
				}
				snc_message_free(&r);
			}
			snc_close(raw);
			if (closing != sinew_v1_ErrorCode_ERR_BAD_MESSAGE)
			{
				hostile_fail(f.name, bad_strings[b].name, "a handshake with a bad string was not closed (closing %d)",
							 (int)closing);
			}
		}
		check_alive(&f, "handshake strings");
	}
	// Valid UTF-8 of every length is taken and listed back as sent.
	const char* names[] = { "мир", "ロボット", "🤖 arm", "\xf4\x8f\xbf\xbf", "é" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
	{
		sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_create_world_tag);
		snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "%s", names[i]);
		uint64_t world = must_create(c, &m, "a valid UTF-8 name");
		destroy_world(c, world);
	}
	check_world_names("valid names");
	check_alive(&f, "valid UTF-8 names");
	snc_close(c);
	figure("string_fields=%d string_messages=%d", fields, messages);
	family_end(&f);
}
