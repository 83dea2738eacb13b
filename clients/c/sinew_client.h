// A small C client for sinewd (prefix snc_): connect over TCP (varint-delimited protobuf) or WebSocket
// (subprotocol sinew.v1), shake hands, send commands and wait for their replies, receive state frames and
// events. One client is used from one thread. Messages are the generated nanopb types of
// proto/sinew.proto; the fields that grow with a world (bodies, joints and articulations of a state frame,
// the world list, snapshot bytes) are decoded into the arrays of snc_message.
//
//   snc_options o = snc_default_options();
//   snc_client* c;
//   if (snc_connect(&o, &c) == 0 && snc_handshake(c, "me", NULL, sinew_v1_Role_ROLE_CONTROLLER, NULL) == 0) {
//       sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
//       m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
//       snc_message reply;
//       if (snc_request(c, &m, &reply, 1000) == 0) { ... reply.worlds[i] ...; snc_message_free(&reply); }
//   }
//   snc_close(c);
//
// Errors are negative errno values: -ETIMEDOUT, -ECONNRESET (the server closed), -EPROTO (bad framing),
// -EMSGSIZE (a message above max_message_bytes), -ENOMEM, or the connect error; or SNC_ERR_HTTP_PORT and
// SNC_ERR_TCP_PORT when the port speaks the other transport (snc_error_string says which to use).
#ifndef SINEW_CLIENT_H
#define SINEW_CLIENT_H

#include "sinew.pb.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum snc_transport
{
	SNC_TCP = 0,
	SNC_WS = 1,
} snc_transport;

typedef struct snc_options
{
	snc_transport transport;
	const char* host;         // default "127.0.0.1"
	int port;                 // default 7420 (TCP) or 7421 (WebSocket) when 0
	int timeout_ms;           // connect and handshake, default 5000
	size_t max_message_bytes; // largest server message accepted, default 256 MiB
	int queue_capacity;       // messages kept while a request waits for its reply, default 1024
	int receive_buffer_bytes; // SO_RCVBUF of the socket; 0: the system's default
	// The numeric address the socket is bound to before it connects (the client's source address, on a
	// machine with several); NULL: the system's choice.
	const char* local_address;
} snc_options;

snc_options snc_default_options(void);

typedef struct snc_client snc_client;

// One articulation of a DescribeWorld reply (WorldDescription): its ArticulationInfo (id, dofs, links,
// fixed base) with its LinkInfos and, for a robot loaded from a URDF, its UrdfModel, whose links, joints
// and visuals are ranges of the message's urdf_* arrays.
typedef struct snc_articulation_info
{
	sinew_v1_ArticulationInfo info;
	int first_link; // its links: link_infos[first_link, first_link + link_count)
	int link_count;
	bool has_urdf;
	sinew_v1_UrdfModel urdf;
	int first_urdf_link; // urdf_links[first_urdf_link, + urdf_link_count), likewise joints and visuals
	int urdf_link_count;
	int first_urdf_joint;
	int urdf_joint_count;
	int first_urdf_visual;
	int urdf_visual_count;
} snc_articulation_info;

// One warning of a LoadUrdf reply, NUL-terminated (longer ones are cut).
typedef char snc_warning_text[640];

// A server message with its growing fields decoded. Free with snc_message_free.
typedef struct snc_message
{
	sinew_v1_ServerMessage msg;
	sinew_v1_BodyState* bodies;
	int body_count;
	sinew_v1_JointState* joints;
	int joint_count;
	sinew_v1_ArticulationState* articulations;
	int articulation_count;
	sinew_v1_WorldInfo* worlds;
	int world_count;
	uint8_t* bytes; // SnapshotData.data
	size_t byte_count;
	sinew_v1_UrdfLink* urdf_links; // UrdfModel (LoadUrdf's reply)
	int urdf_link_count;
	sinew_v1_UrdfJoint* urdf_joints;
	int urdf_joint_count;
	sinew_v1_UrdfVisual* urdf_visuals;
	int urdf_visual_count;
	snc_warning_text* urdf_warnings; // what the importer ignored, merged or repaired (UrdfModel.warnings)
	int urdf_warning_count;
	snc_articulation_info* articulation_infos; // WorldDescription (DescribeWorld's reply)
	int articulation_info_count;
	sinew_v1_LinkInfo* link_infos;
	int link_info_count;
	sinew_v1_ShapeInfo* shape_infos; // WorldDescription.shapes
	int shape_info_count;
	uint64_t* shape_ids; // Created.shape_ids
	int shape_id_count;
	sinew_v1_Contact* contacts; // StateFrame.contacts
	int contact_count;
	sinew_v1_ContactChange* contact_changes; // Event.contacts (ContactEvents.changes)
	int contact_change_count;
	uint8_t (*hashes)[32]; // AssetList.missing (FindAssets' reply)
	int hash_count;
	// MeshData.data (GetMesh's reply) goes to bytes/byte_count, as SnapshotData.data does.
	uint64_t received_ns; // CLOCK_MONOTONIC when it was read
	size_t wire_size;     // bytes of the encoded message
} snc_message;

void snc_message_free(snc_message* message);

int snc_connect(const snc_options* options, snc_client** out);
void snc_close(snc_client* client);

// The server refused the handshake (snc_handshake; the reason is in the reply's status).
#define SNC_REFUSED 1
// The TCP client reached a port that answers in HTTP: sinewd's HTTP/WebSocket port, not its TCP port.
#define SNC_ERR_HTTP_PORT (-1001)
// The WebSocket client reached a port that does not answer in HTTP: sinewd's TCP port, not its HTTP port.
#define SNC_ERR_TCP_PORT (-1002)

// Send the handshake and wait for its answer. out (may be NULL) receives the reply. Returns 0, SNC_REFUSED
// (the server then closes the connection), or a negative error.
int snc_handshake(snc_client* client, const char* name, const char* token, sinew_v1_Role role,
				  sinew_v1_HandshakeReply* out);

// Send a command. A request_id of 0 is replaced by the next free one (returned in message->request_id).
int snc_send(snc_client* client, sinew_v1_ClientMessage* message);
// Send bytes as one message of the transport without encoding (tests: garbage, truncations). With
// TCP the bytes go out as they are, without a length prefix.
int snc_send_raw(snc_client* client, const void* bytes, size_t size);
// Send a command and wait for its Reply; frames and events that arrive meanwhile are queued for
// snc_receive. Returns 0 when the reply came (its status says whether the command succeeded).
int snc_request(snc_client* client, sinew_v1_ClientMessage* message, snc_message* reply, int timeout_ms);
// The next message: queued ones first. timeout_ms < 0 waits forever, 0 does not wait.
int snc_receive(snc_client* client, snc_message* out, int timeout_ms);

// LoadUrdf with its growing fields (the URDF text, per-joint drives, initial positions); arrays may be
// NULL with a count of 0. drive_all and base_pose may be NULL.
typedef struct snc_urdf_request
{
	uint64_t world_id;
	const char* urdf; // the URDF text (need not end with a zero)
	size_t urdf_size;
	const char* file_name; // named in error messages (NULL: "<urdf>")
	sinew_v1_BaseMode base_mode;
	const sinew_v1_Transform* base_pose;
	const sinew_v1_Drive* drive_all;
	const sinew_v1_JointDrive* drives;
	int drive_count;
	const sinew_v1_JointValue* initial;
	int initial_count;
	bool missing_meshes_ok; // a mesh file nobody has is left out with a warning
} snc_urdf_request;

// Send LoadUrdf and wait for its reply (the UrdfModel's links, joints and visuals in reply->urdf_*).
int snc_load_urdf(snc_client* client, const snc_urdf_request* request, snc_message* reply, int timeout_ms);

// ---- shapes -------------------------------------------------------------------------------------------

// A shape to send: a ShapeDef (geometry, pose, material, filter...) and, for a hull or a triangle mesh, its
// arrays: points (x, y, z per point: a hull's points or a mesh's vertices, point_values = 3 x points) and a
// mesh's triangle indices. The arrays are encoded into the def's callbacks when sent.
typedef struct snc_shape
{
	sinew_v1_ShapeDef def;
	const double* points;
	size_t point_values;
	const uint32_t* indices;
	size_t index_count;
} snc_shape;

// A shape of the given geometry with the defaults (snc_shape_sphere(0.1), ...). Hulls and meshes point at
// the caller's arrays (they must live until sent).
snc_shape snc_shape_sphere(double radius);
snc_shape snc_shape_box(double hx, double hy, double hz);
snc_shape snc_shape_capsule(double radius, double half_length);
snc_shape snc_shape_cylinder(double radius, double half_height);
snc_shape snc_shape_plane(double nx, double ny, double nz, double offset);
snc_shape snc_shape_hull(const double* points, size_t point_values);
snc_shape snc_shape_mesh(const double* vertices, size_t vertex_values, const uint32_t* indices, size_t index_count);

// CreateBody with shapes (body NULL: the default body def; density NULL: the body's own mass). The reply's
// created.id is the body, shape_ids its shapes.
int snc_create_body(snc_client* client, uint64_t world_id, const sinew_v1_BodyDef* body, const snc_shape* shapes,
					int shape_count, const double* density, snc_message* reply, int timeout_ms);
// CreateShape on a body (body_id), a link (articulation_id, link) or the world (both 0).
int snc_create_shape(snc_client* client, uint64_t world_id, uint64_t body_id, uint64_t articulation_id, int link,
					 const snc_shape* shape, snc_message* reply, int timeout_ms);
// The encode callback the two use for a shape's arrays (pb_callback_t: arg points to the snc_shape).
bool snc_encode_shape_values(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);
bool snc_encode_shape_indices(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);
// Point a shape's def callbacks at its arrays (done by the senders above; for building messages by hand).
void snc_shape_bind(snc_shape* shape);

// ---- model assets and meshes ----------------------------------------------------------------------------

// One file for LoadUrdf: by URI as the URDF writes it, its SHA-256 (32 bytes, may be NULL when data is
// sent) and its bytes (data NULL: the server has it by hash).
typedef struct snc_asset
{
	const char* uri;
	const uint8_t* sha256;
	const void* data;
	size_t size;
} snc_asset;

// LoadUrdf with assets, or a model on the server's model path (model not NULL: urdf is ignored).
int snc_load_urdf_assets(snc_client* client, const snc_urdf_request* request, const snc_asset* assets, int asset_count,
						 const char* model, snc_message* reply, int timeout_ms);
// FindAssets: the reply's hashes are those the server lacks.
int snc_find_assets(snc_client* client, const uint8_t (*hashes)[32], int count, snc_message* reply, int timeout_ms);
// PutAsset (sha256 may be NULL).
int snc_put_asset(snc_client* client, const void* data, size_t size, const uint8_t* sha256, snc_message* reply,
				  int timeout_ms);
// GetMesh in chunks until the whole mesh is here: *out gets a malloc'd copy (free it), *size its bytes.
// Returns 0 or a transport error; *status is the server's code (0, or its refusal such as
// ERR_UNKNOWN_ASSET, and then *out is NULL).
int snc_get_mesh(snc_client* client, const uint8_t hash[32], uint8_t** out, size_t* size, int32_t* status,
				 int timeout_ms);

// Status code of a reply (0 if OK, or when the message is not a reply).
int32_t snc_reply_code(const snc_message* reply);
const char* snc_reply_text(const snc_message* reply);
const char* snc_error_string(int error);
// The socket, for poll().
int snc_fd(const snc_client* client);
// Messages dropped from the client's queue because it was full (oldest state frames go first).
uint64_t snc_queue_dropped(const snc_client* client);

// CLOCK_MONOTONIC, ns.
uint64_t snc_now_ns(void);

#endif
