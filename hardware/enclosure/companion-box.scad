// The Trekking Companion's box: a base that holds the Pi and a lid that carries the
// Clock ring, the RFID reader and the three buttons. Parametric so that one file makes
// every supported ring (12/16/24 LEDs) and board (Pi Zero 2 W, 3, 4, 5); see README.md.
//
//   openscad -D 'part="lid"' -D ring_leds=24 -D 'board="pi4"' -o lid.stl companion-box.scad
//
// Units are millimetres. The origin is the box's front-left corner on the table; +x to the
// right, +y away from the players (12 o'clock is at +y), +z up. The lid is modelled as
// assembled (its top face at z = lid_t) and turned over for export by `part`, so it prints
// top face down, the tube and pads upwards, with no support.

/* [What to make] */
part = "assembly";        // "lid", "base", "diffuser", "lid_drawing" (2-D, the lid's holes), "assembly"
ring_leds = 24;           // 12, 16 or 24 (Adafruit 1643, 1463, 1586)
board = "pi4";            // "zero2w", "pi3", "pi4", "pi5"

/* [Box] */
box_w = 210;              // outside, left to right
box_d = 130;              // outside, front to back
box_h = 50;               // outside, base and lid together
wall = 2.4;
floor_t = 2.4;
lid_t = 3;                // the lid over the reader is thinned to reader_skin
corner = 8;               // the square corner pillars that take the lid's screws
lid_screw_d = 3.4;        // through the lid: M3 screws
pillar_hole_d = 2.5;      // into the pillars: M3 self-tapping
lip = 1.6;                // the lid's locating lip inside the walls
fit = 0.3;                // clearance between printed parts that slide together

/* [Ring] */
// Outside and inside diameters of Adafruit's rings (product pages: 1643 "37 mm",
// 1463 "44.5 mm", 1586 "66 mm" outer). Generic rings differ: measure yours and set ring_od.
ring_od = ring_leds == 12 ? 37 : ring_leds == 16 ? 44.5 : 66;
ring_id = ring_leds == 12 ? 23 : ring_leds == 16 ? 31.75 : 52.3;
ring_pcb_t = 1.6;
led_h = 1.6;              // a 5050 LED's height above the ring's board
led_to_diffuser = 6;      // air between the LEDs and the diffuser: blends the points into segments
diffuser_t = 2;           // 2 mm opal acrylic, or part="diffuser" printed in white
diffuser_margin = 4;      // the diffuser overlaps the window by this much all round
ring_x = 122;             // the ring's centre
ring_y = 78;

/* [Reader] */
// The common blue RC522 board is 40 x 60 mm; its coil fills the end away from the header.
reader_w = 40;
reader_l = 60;
reader_x = 16;            // the board's front-left corner (header end at the front)
reader_y = 50;
reader_skin = 1.5;        // what is left of the lid over the antenna
reader_pad_h = 3;         // the pads hold the board 4.5 mm under the thinned lid: its crystal is about 4 mm tall
tap_d = 36;               // the tap-zone ring engraved on the lid, centred on the coil
antenna_from_far_end = 22;

/* [Buttons] */
button_d = 12.2;          // 12 mm panel-mount push buttons (a 12 mm hole; 0.2 mm for print shrink)
button_pitch = 45;
button_y = 20;

/* [Cable exits] */
power_hole_w = 14;        // the Pi's power plug goes through the back wall, in line with its socket:
power_hole_h = 9;         // a USB-C or micro-USB plug's moulding is about 12 x 7 mm
ring_supply_d = 11;       // round hole in the right wall for a panel DC jack or a grommet; 0 = none

/* [Ventilation] */
slot_w = 3;
slot_l = 30;
slot_n = 7;

$fn = 64;

// The boards: outline, mounting holes (all M2.5, 3.5 mm from the edges) and where the
// power socket sits along the long edge, measured from the microSD end.
function board_size(b) = b == "zero2w" ? [65, 30] : [85, 56];
function board_holes(b) = b == "zero2w" ? [58, 23] : [58, 49];
function power_from_sd_end(b) = b == "zero2w" ? 54 : b == "pi3" ? 10.6 : 11.2;
pi_standoff_h = 5;
pi_boss_d = 6.5;
pi_hole_d = 2.2;          // M2.5 screws cut their own thread in a printed boss

inner_w = box_w - 2 * wall;
inner_d = box_d - 2 * wall;
base_h = box_h - lid_t;
// The Pi sits at the back right, its power edge 3 mm from the back wall (the plug reaches it
// through the wall) and its header facing the players; turned 180 degrees from the drawings,
// so its microSD end is on the right, clear of the corner pillar.
pi = board_size(board);
pi_x = wall + inner_w - pi[0] - corner - 1;
pi_y = wall + inner_d - pi[1] - 3;
// Mounting holes in box coordinates (the pattern sits at the microSD end, 3.5 mm from the edges).
pi_holes = [for (i = [0, 1], j = [0, 1])
    [pi_x + pi[0] - 3.5 - i * board_holes(board)[0], pi_y + pi[1] - 3.5 - j * board_holes(board)[1]]];
power_x = pi_x + pi[0] - power_from_sd_end(board);
buttons = [for (k = [-1, 0, 1]) [box_w / 2 + k * button_pitch, button_y]];
window_d = ring_od - 1;          // the lid's window hides the ring board's edge, shows every LED
tube_d = ring_od + 2 * fit;       // the bore the ring slides into
diffuser_d = tube_d + 2 * diffuser_margin;
antenna = [reader_x + reader_w / 2, reader_y + reader_l - antenna_from_far_end];
lid_screws = [for (x = [wall + corner / 2, box_w - wall - corner / 2], y = [wall + corner / 2, box_d - wall - corner / 2]) [x, y]];

// What the drawing and the test read: every hole of the lid, one line each.
echo(str("LID outline ", box_w, " ", box_d, " thickness ", lid_t));
echo(str("LID ring ", ring_leds, " centre ", ring_x, " ", ring_y, " window ", window_d, " diffuser ", diffuser_d, " depth ", diffuser_t));
echo(str("LID reader corner ", reader_x, " ", reader_y, " size ", reader_w, " ", reader_l, " tap ", antenna[0], " ", antenna[1], " ", tap_d, " skin ", reader_skin));
for (b = buttons) echo(str("LID button ", b[0], " ", b[1], " ", button_d));
for (s = lid_screws) echo(str("LID screw ", s[0], " ", s[1], " ", lid_screw_d));
echo(str("BASE board ", board, " holes ", pi_holes, " power_x ", power_x, " ring_supply ", ring_supply_d));
echo(str("GAP reader_to_ring ", ring_x - tube_d / 2 - 2 - (reader_x + reader_w)));

module rounded_box(w, d, h, r = 3) {
    hull() for (x = [r, w - r], y = [r, d - r]) translate([x, y, 0]) cylinder(r = r, h = h);
}

// --- Lid, as assembled ---

module ring_tube() {
    // The ring goes in from below, LEDs up, until its board meets four 2 mm ribs; the ribs sit
    // half an LED step off the hours, between two LEDs on every ring, when LED 0 is at 12.
    pcb_top = (lid_t - diffuser_t) - led_to_diffuser - led_h;  // z of the ring board's top face
    depth = -pcb_top + ring_pcb_t + 1;
    translate([ring_x, ring_y, -depth]) difference() {
        cylinder(d = tube_d + 4, h = depth);
        translate([0, 0, -1]) cylinder(d = tube_d, h = depth + 2);
    }
    for (k = [0:3]) rotate_about([ring_x, ring_y], 90 + 90 * k + 180 / ring_leds)
        translate([ring_x + tube_d / 2 - 1.2, ring_y - 0.8, pcb_top]) cube([2.2, 1.6, 2]);
}

module rotate_about(c, a) { translate([c[0], c[1], 0]) rotate([0, 0, a]) translate([-c[0], -c[1], 0]) children(); }

module reader_pads() {
    for (x = [reader_x + 2, reader_x + reader_w - 6], y = [reader_y + 2, reader_y + reader_l - 6])
        translate([x, y, -reader_pad_h]) cube([4, 4, reader_pad_h + lid_t - reader_skin]);
}

module lid() {
    difference() {
        union() {
            rounded_box(box_w, box_d, lid_t);
            // the locating lip, broken at the corner pillars
            translate([0, 0, -3]) difference() {
                translate([wall + fit, wall + fit, 0]) cube([inner_w - 2 * fit, inner_d - 2 * fit, 3]);
                translate([wall + fit + lip, wall + fit + lip, -1]) cube([inner_w - 2 * fit - 2 * lip, inner_d - 2 * fit - 2 * lip, 5]);
                for (s = lid_screws) translate([s[0] - corner / 2 - fit, s[1] - corner / 2 - fit, -1]) cube([corner + 2 * fit, corner + 2 * fit, 5]);
            }
        }
        // ring window and the diffuser's seat, from the top
        translate([ring_x, ring_y, -1]) cylinder(d = window_d, h = lid_t + 2);
        translate([ring_x, ring_y, lid_t - diffuser_t]) cylinder(d = diffuser_d, h = diffuser_t + 1);
        // the lid thinned over the reader, from below, and the tap zone engraved on top
        translate([reader_x, reader_y, -1]) cube([reader_w, reader_l, 1 + lid_t - reader_skin]);
        translate([antenna[0], antenna[1], lid_t - 0.4]) difference() {
            cylinder(d = tap_d, h = 1);
            translate([0, 0, -1]) cylinder(d = tap_d - 2, h = 3);
        }
        for (b = buttons) translate([b[0], b[1], -1]) cylinder(d = button_d, h = lid_t + 2);
        for (s = lid_screws) translate([s[0], s[1], -4]) cylinder(d = lid_screw_d, h = lid_t + 5);
    }
    ring_tube();
    reader_pads();
}

// --- Base ---

module vent_slots(n, along) {
    for (k = [0:n - 1]) translate(along * k * (slot_w * 2.5)) children();
}

module base() {
    difference() {
        union() {
            difference() {
                rounded_box(box_w, box_d, base_h);
                translate([wall, wall, floor_t]) cube([inner_w, inner_d, base_h]);
            }
            for (s = lid_screws) translate([s[0] - corner / 2, s[1] - corner / 2, 0]) cube([corner, corner, base_h]);
            for (h = pi_holes) translate([h[0], h[1], 0]) cylinder(d = pi_boss_d, h = floor_t + pi_standoff_h);
            // feet, so the floor slots under the Pi breathe
            for (x = [12, box_w - 12], y = [12, box_d - 12]) translate([x, y, -2]) cylinder(d = 10, h = 2.01);
        }
        for (s = lid_screws) translate([s[0], s[1], base_h - 14]) cylinder(d = pillar_hole_d, h = 15);
        for (h = pi_holes) translate([h[0], h[1], 1]) cylinder(d = pi_hole_d, h = floor_t + pi_standoff_h);
        // air in under the Pi, out high through the back wall (the Pi's side) and the left wall
        translate([pi_x + 12, pi_y + 8, -3]) vent_slots(slot_n, [1, 0, 0])
            cube([slot_w, min(slot_l, pi[1] - 16), floor_t + 4]);
        translate([wall + 20, box_d - wall - 1, base_h - 14]) vent_slots(slot_n, [1, 0, 0])
            cube([slot_w, wall + 2, 8]);
        translate([-1, wall + 30, base_h - 14]) vent_slots(slot_n, [0, 1, 0])
            cube([wall + 2, slot_w, 8]);
        // the Pi's power plug, at the height of its socket (about 1.6 mm above the board)
        translate([power_x - power_hole_w / 2, box_d - wall - 1, floor_t + pi_standoff_h + 1.6 + 1.6 - power_hole_h / 2])
            cube([power_hole_w, wall + 2, power_hole_h]);
        // the ring's own supply, through the right wall near the back
        if (ring_supply_d > 0)
            translate([box_w - wall - 1, wall + 24, floor_t + 14]) rotate([0, 90, 0]) cylinder(d = ring_supply_d, h = wall + 2);
    }
}

module diffuser() { cylinder(d = diffuser_d - 2 * fit, h = diffuser_t); }

// The lid seen from above, cut through its top face: every hole a maker drills or checks.
module lid_drawing() { projection(cut = true) translate([0, 0, -(lid_t - 0.2)]) lid(); }

if (part == "lid") translate([0, box_d, lid_t]) rotate([180, 0, 0]) lid();
else if (part == "base") translate([0, 0, 2]) base();
else if (part == "diffuser") diffuser();
else if (part == "lid_drawing") lid_drawing();
else {
    base();
    translate([0, 0, base_h + 0.01]) lid();
    %translate([ring_x, ring_y, base_h + lid_t - diffuser_t + 0.02]) diffuser();
}
