// Builds the dashboard into one directory that sinewd serves (--web-root): index.html, app.js, app.css.
//
//   node build.mjs [--outdir DIR]     default: dist/ next to this file (CMake passes its build tree)
//
// The wire schema is read from the project's own proto/sinew.proto at build time: protobufjs parses it
// here and the bundle carries it as JSON (the browser uses protobufjs/light, without the parser). three.js,
// protobufjs and long come from node_modules (npm ci, pinned by package-lock.json) and are bundled by
// esbuild: the page fetches nothing but these three files and its WebSocket.
import * as esbuild from 'esbuild';
import protobuf from 'protobufjs';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const protoFile = path.resolve(here, '..', '..', 'proto', 'sinew.proto');

function parseArgs(argv) {
	const args = { outdir: path.join(here, 'dist') };
	for (let i = 0; i < argv.length; ++i) {
		if (argv[i] === '--outdir' && i + 1 < argv.length) {
			args.outdir = path.resolve(argv[++i]);
		} else {
			console.error(`build.mjs: unknown argument ${argv[i]} (usage: node build.mjs [--outdir DIR])`);
			process.exit(2);
		}
	}
	return args;
}

// The schema as protobufjs JSON, served to the bundle as the module `sinew:schema`.
function schemaPlugin() {
	return {
		name: 'sinew-schema',
		setup(build) {
			build.onResolve({ filter: /^sinew:schema$/ }, () => ({ path: protoFile, namespace: 'sinew-schema' }));
			build.onLoad({ filter: /.*/, namespace: 'sinew-schema' }, () => {
				const root = protobuf.loadSync(protoFile);
				return { contents: JSON.stringify(root.toJSON({ keepComments: false })), loader: 'json', watchFiles: [protoFile] };
			});
		},
	};
}

const args = parseArgs(process.argv.slice(2));
const started = Date.now();
fs.mkdirSync(args.outdir, { recursive: true });
const result = await esbuild.build({
	entryPoints: { app: path.join(here, 'src', 'main.js') },
	bundle: true,
	minify: true,
	format: 'esm',
	target: ['es2020'],
	outdir: args.outdir,
	plugins: [schemaPlugin()],
	legalComments: 'none',
	metafile: true,
	logLevel: 'warning',
});
fs.copyFileSync(path.join(here, 'src', 'index.html'), path.join(args.outdir, 'index.html'));
fs.copyFileSync(path.join(here, 'src', 'app.css'), path.join(args.outdir, 'app.css'));
let bytes = 0;
for (const name of fs.readdirSync(args.outdir)) {
	bytes += fs.statSync(path.join(args.outdir, name)).size;
}
const js = result.metafile.outputs[Object.keys(result.metafile.outputs).find((k) => k.endsWith('app.js'))].bytes;
console.log(`dashboard: ${args.outdir} (app.js ${(js / 1024).toFixed(0)} KiB, all files ${(bytes / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`);
