"""The ``arbiter`` command's words (``cli.`` keys): its tables, lines and errors, es and en."""

from __future__ import annotations

from typing import Final

from arbiter.words.lang import Lang

WORDS: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "cli.stdin": "standard input",
        "cli.stdout": "standard output",
        "cli.score.stopped": (
            "stopped by {signal}: {games} games done, written to {where} with a manifest; "
            "run again with --resume to continue"
        ),
        "cli.score.resume_needs_out": "--resume continues a run to --out FILE or --out DIR",
        "cli.score.cannot_resume": "cannot resume: {reason}",
        "cli.score.nothing_to_resume": "--resume: {path} holds no run to continue; starting",
        "cli.score.progress": "{games} games, {rate} games/s, {errors} errors",
        "cli.error.cannot_read": "cannot read {path}: {reason}",
        "cli.error.not_json": "{what} is not JSON: {reason}",
        "cli.error.invalid_input": "invalid input at {pointer}: {message}",
        "cli.error.interrupted": "interrupted",
        "cli.error.cannot_write": "cannot write {path}: {reason}",
        "cli.reason.no_folder": "the folder {folder} does not exist",
        "cli.reason.not_a_folder": "{folder} is not a folder",
        "cli.reason.is_a_folder": "it is a folder",
        "cli.needs": "{what} needs {package}: install it with {command}",
        "cli.replay.deal": "Deal {number} — dealer {dealer}, trump {trump}",
        "cli.replay.no_trump": "none yet",
        "cli.replay.leader": "leader",
        "cli.replay.plays": "plays",
        "cli.replay.winner": "winner",
        "cli.replay.points": "pts",
        "cli.replay.draws": "draws",
        "cli.replay.cante": "cante: {name} {points} in {suit} (trick {trick})",
        "cli.replay.exchange": "exchange: {name} gave {gave} for {took}",
        "cli.replay.renuncio": "RENUNCIO (event {event}): {message} [correct: {correct}]",
        "cli.replay.score": (
            "{name} {total} (cards {cards}, cantes {cantes}, last {last}, tricks {tricks})"
        ),
        "cli.replay.scores": "scores: {scores}",
        "cli.replay.sides": "sides: {sides}",
        "cli.replay.outcome": "outcome: {message} ({reason})",
        "cli.replay.illegal": "ILLEGAL at deal {deal}, event {event}: {message} ({code})",
        "cli.replay.illegal_deal": "ILLEGAL at deal {deal}: {message} ({code})",
        "cli.replay.match": "Match ({counter}): {standings}",
        "cli.replay.match_over": "Match over — winners: {winners}",
        "cli.replay.status": "Status: {status}",
        "cli.replay.next": "Next: {player} — {moves}",
        "cli.counter.deals_won": "deals won",
        "cli.counter.loser_points": "loser points",
        "cli.counter.tokens": "tokens",
        "cli.status.complete": "complete",
        "cli.status.in_progress": "in progress",
        "cli.status.invalid": "invalid",
        "cli.move.play": "play {card}",
        "cli.move.sing": "sing {suit}",
        "cli.move.tute": "tute of {of}",
        "cli.move.exchange": "exchange the seven",
        "cli.verdict.ok": "ok",
        "cli.verdict.renuncio": "renuncio",
        "cli.verdict.illegal": "illegal",
        "cli.validate.moves": "legal moves: {moves}",
        "cli.validate.deal_over": (
            "legal moves: none — the deal is over; the next one begins with a new deal in the log"
        ),
        "cli.validate.match_over": "legal moves: none — the match is over",
        "cli.score.parquet_out": "--format parquet writes a file: give --out FILE or --out DIR",
        "cli.score.out_is_input": "--out {path} is one of the inputs",
        "cli.score.same_part": "{first} and {second} would both be written to {part}",
        "cli.score.worker_died": "a worker process died (out of memory?); the output is incomplete",
        "cli.score.jobs_clamped": "--jobs {asked}: this command may use {cpus} CPUs; using {cpus}",
        "cli.score.games": "games",
        "cli.score.rate": "games/s",
        "cli.score.errors": "errors",
        "cli.summary.title": "Archive scored",
        "cli.summary.figure": "figure",
        "cli.summary.count": "count",
        "cli.summary.breaches": "with a renuncio or illegal event",
        "cli.summary.statuses": "games by status",
        "cli.summary.deals": "deals",
        "cli.summary.outcomes": "outcome reasons",
        "cli.summary.renuncios": "renuncios",
        "cli.summary.obligations": "by obligation",
        "cli.summary.illegal": "illegal events",
        "cli.summary.none": "none",
        "cli.summary.skipped": "inputs not read",
        "cli.conformance.no_match": "no vector matches --rules and --rulesets",
        "cli.conformance.cannot_start": "cannot start the engine {engine}: {reason}",
        "cli.conformance.cannot_reach": "cannot reach the engine at {engine}: {reason}",
        "cli.serve.workers": "--workers must be 1 or more, not {value}",
        "cli.serve.port": "--port must be from 1 to 65535, not {value}",
        "cli.serve.host": "cannot listen on {host}: {reason}",
        "cli.serve.busy": (
            "port {port} of {host} is already in use (another server?): choose another with --port"
        ),
    },
    "es": {
        "cli.stdin": "la entrada estándar",
        "cli.stdout": "la salida estándar",
        "cli.score.stopped": (
            "detenido por {signal}: {games} partidas hechas, escritas en {where} con un "
            "manifiesto; vuelve a lanzarlo con --resume para seguir"
        ),
        "cli.score.resume_needs_out": (
            "--resume sigue una ejecución a --out FICHERO o --out CARPETA"
        ),
        "cli.score.cannot_resume": "no se puede seguir: {reason}",
        "cli.score.nothing_to_resume": "--resume: {path} no guarda nada que seguir; se empieza",
        "cli.score.progress": "{games} partidas, {rate} partidas/s, {errors} errores",
        "cli.error.cannot_read": "no se puede leer {path}: {reason}",
        "cli.error.not_json": "{what} no es JSON: {reason}",
        "cli.error.invalid_input": "entrada no válida en {pointer}: {message}",
        "cli.error.interrupted": "interrumpido",
        "cli.error.cannot_write": "no se puede escribir {path}: {reason}",
        "cli.reason.no_folder": "la carpeta {folder} no existe",
        "cli.reason.not_a_folder": "{folder} no es una carpeta",
        "cli.reason.is_a_folder": "es una carpeta",
        "cli.needs": "{what} necesita {package}: instálalo con {command}",
        "cli.replay.deal": "Mano {number} — reparte {dealer}, triunfo {trump}",
        "cli.replay.no_trump": "aún ninguno",
        "cli.replay.leader": "sale",
        "cli.replay.plays": "jugadas",
        "cli.replay.winner": "gana",
        "cli.replay.points": "ptos",
        "cli.replay.draws": "robos",
        "cli.replay.cante": "cante: {name} {points} en {suit} (baza {trick})",
        "cli.replay.exchange": "cambio: {name} dio {gave} por {took}",
        "cli.replay.renuncio": "RENUNCIO (evento {event}): {message} [correctas: {correct}]",
        "cli.replay.score": (
            "{name} {total} (cartas {cards}, cantes {cantes}, últimas {last}, bazas {tricks})"
        ),
        "cli.replay.scores": "puntos: {scores}",
        "cli.replay.sides": "parejas: {sides}",
        "cli.replay.outcome": "resultado: {message} ({reason})",
        "cli.replay.illegal": "ILEGAL en la mano {deal}, evento {event}: {message} ({code})",
        "cli.replay.illegal_deal": "ILEGAL en la mano {deal}: {message} ({code})",
        "cli.replay.match": "Partida ({counter}): {standings}",
        "cli.replay.match_over": "Partida terminada — ganan: {winners}",
        "cli.replay.status": "Estado: {status}",
        "cli.replay.next": "Turno: {player} — {moves}",
        "cli.counter.deals_won": "manos ganadas",
        "cli.counter.loser_points": "puntos de perdedor",
        "cli.counter.tokens": "fichas",
        "cli.status.complete": "terminada",
        "cli.status.in_progress": "en curso",
        "cli.status.invalid": "no válida",
        "cli.move.play": "jugar {card}",
        "cli.move.sing": "cantar {suit}",
        "cli.move.tute": "tute de {of}",
        "cli.move.exchange": "cambiar el siete",
        "cli.verdict.ok": "vale",
        "cli.verdict.renuncio": "renuncio",
        "cli.verdict.illegal": "ilegal",
        "cli.validate.moves": "jugadas posibles: {moves}",
        "cli.validate.deal_over": (
            "jugadas posibles: ninguna — la mano ha terminado; la siguiente empieza con una mano "
            "nueva en el registro"
        ),
        "cli.validate.match_over": "jugadas posibles: ninguna — la partida ha terminado",
        "cli.score.parquet_out": (
            "--format parquet escribe un fichero: da --out FICHERO o --out CARPETA"
        ),
        "cli.score.out_is_input": "--out {path} es una de las entradas",
        "cli.score.same_part": "{first} y {second} se escribirían las dos en {part}",
        "cli.score.worker_died": (
            "un proceso de trabajo murió (¿sin memoria?); la salida está incompleta"
        ),
        "cli.score.jobs_clamped": (
            "--jobs {asked}: esta orden puede usar {cpus} CPU; se usan {cpus}"
        ),
        "cli.score.games": "partidas",
        "cli.score.rate": "partidas/s",
        "cli.score.errors": "errores",
        "cli.summary.title": "Archivo puntuado",
        "cli.summary.figure": "dato",
        "cli.summary.count": "cuántos",
        "cli.summary.breaches": "con un renuncio o un evento ilegal",
        "cli.summary.statuses": "partidas por estado",
        "cli.summary.deals": "manos",
        "cli.summary.outcomes": "motivos del resultado",
        "cli.summary.renuncios": "renuncios",
        "cli.summary.obligations": "por obligación",
        "cli.summary.illegal": "eventos ilegales",
        "cli.summary.none": "ninguno",
        "cli.summary.skipped": "entradas no leídas",
        "cli.conformance.no_match": "ningún vector cumple --rules y --rulesets",
        "cli.conformance.cannot_start": "no se puede arrancar el motor {engine}: {reason}",
        "cli.conformance.cannot_reach": "no se puede contactar con el motor en {engine}: {reason}",
        "cli.serve.workers": "--workers debe ser 1 o más, no {value}",
        "cli.serve.port": "--port debe ir de 1 a 65535, no {value}",
        "cli.serve.host": "no se puede escuchar en {host}: {reason}",
        "cli.serve.busy": (
            "el puerto {port} de {host} ya está en uso (¿otro servidor?): elige otro con --port"
        ),
    },
}
