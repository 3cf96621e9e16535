// The page's words in English and French (the game ships in both).
window.I18N = {
  en: {
    title: "Trekking Companion", host: "Host", game_over: "Game over", score_chart: "Scores through the game",
    standings: "Standings", departures: "Departures Row", log: "What happened", host_controls: "Host controls",
    pin: "Table PIN", login: "Log in", virtual_table: "Virtual reader and buttons", tap_placeholder: "card id or title",
    tap: "Tap", crystal: "Crystal", confirm: "Confirm", undo: "Undo", undo_last: "Undo the last event",
    correct: "Correct a mistake", wild_to: "Latest take's Wilds to", apply: "Apply", follows: "follows",
    new_game: "New game", edition: "Edition", start: "Start", enrol: "Enrol a tag", find_card: "Card (title or year)",
    hours: "Hours", gains: "Benefits", save: "Save", logout: "Log out", join: "Join from your phone",
    day: "Day", turn: "{p}'s turn", next: "then {p}", waiting_reveal: "Reveal the next card: tap it on the reader",
    waiting_itinerary: "{p}: tap your Itinerary for today", confirm_take: "{p}: {c} lands at {h} o'clock — Crystal to spend one, then Confirm",
    won: "{w} wins!", won_shared: "{w} share the victory!", track: "track", crystals: "crystals", trek_points: "treks",
    total: "Total", hour: "hour", current_trek: "Trek", done_treks: "Done", ancestors_left: "{n} Ancestors left",
    deck_top: "deck top", hidden: "to reveal", empty: "—", bonus: "playmat", itinerary_none: "no Itinerary yet",
    row_reward: "rows", log_take: "{p} took {c} ({y})", log_itin: "{p} chose Itinerary {i}", log_reveal: "Revealed {c} ({y})",
    log_dayend: "End of Day {d}", spent: "{n} crystal(s) spent", player: "Player", colour: "Colour",
    offline: "Offline — retrying", polling: "Live stream unavailable — refreshing every 2 s", logged_in: "You are the host.",
    session_ended: "You are no longer logged in as host (you logged out elsewhere, the login expired, or the companion restarted or changed its PIN). Log in again with the table PIN.",
    wrong: "Not accepted", bce: "BCE", position: "pos.",
    codes: {
      game_over: "The game is over.", bad_event: "That input was not understood.", not_your_turn: "It is not that player's turn.",
      itinerary_required: "Choose an Itinerary first.", no_ancestor_left: "No Ancestor card is left.",
      ancestor_cannot_start_trek: "An Ancestor cannot start a Trek.", unknown_card: "Unknown card.",
      card_not_available: "That card is not in the Departures Row.", too_many_crystals: "Not that many crystals.",
      cost_below_one: "A card always costs at least 1 hour.", itinerary_unavailable: "That Itinerary is not available.",
      nothing_to_undo: "Nothing to undo.", unknown_tag: "Unknown tag."
    }
  },
  fr: {
    title: "Compagnon Trekking", host: "Hôte", game_over: "Partie terminée", score_chart: "Les scores au fil de la partie",
    standings: "Classement", departures: "Rangée Rencontres historiques", log: "Ce qui s'est passé", host_controls: "Commandes de l'hôte",
    pin: "Code de la table", login: "Se connecter", virtual_table: "Lecteur et boutons virtuels", tap_placeholder: "id ou titre de carte",
    tap: "Poser", crystal: "Cristal", confirm: "Valider", undo: "Annuler", undo_last: "Annuler le dernier coup",
    correct: "Corriger une erreur", wild_to: "Jokers de la dernière carte vers", apply: "Appliquer", follows: "suit",
    new_game: "Nouvelle partie", edition: "Édition", start: "Commencer", enrol: "Enregistrer une étiquette",
    find_card: "Carte (titre ou année)", hours: "Heures", gains: "Gains", save: "Enregistrer", logout: "Se déconnecter",
    join: "Rejoindre depuis un téléphone", day: "Jour", turn: "À {p} de jouer", next: "puis {p}",
    waiting_reveal: "Révélez la carte suivante : posez-la sur le lecteur", waiting_itinerary: "{p} : posez votre Itinéraire du jour",
    confirm_take: "{p} : {c} arrive à {h} h — Cristal pour en dépenser un, puis Valider",
    won: "{w} gagne !", won_shared: "{w} se partagent la victoire !", track: "piste", crystals: "cristaux", trek_points: "voyages",
    total: "Total", hour: "heure", current_trek: "Voyage", done_treks: "Terminés", ancestors_left: "{n} Ancêtres restants",
    deck_top: "sommet du paquet", hidden: "à révéler", empty: "—", bonus: "tapis", itinerary_none: "pas encore d'Itinéraire",
    row_reward: "lignes", log_take: "{p} a pris {c} ({y})", log_itin: "{p} a choisi l'Itinéraire {i}", log_reveal: "Révélée : {c} ({y})",
    log_dayend: "Fin du Jour {d}", spent: "{n} cristal(aux) dépensé(s)", player: "Joueur", colour: "Couleur",
    offline: "Hors ligne — nouvelle tentative", polling: "Flux en direct indisponible — mise à jour toutes les 2 s",
    session_ended: "Vous n'êtes plus connecté comme hôte (déconnexion ailleurs, connexion expirée, ou le compagnon a redémarré ou changé de code). Reconnectez-vous avec le code de la table.",
    logged_in: "Vous êtes l'hôte.", wrong: "Refusé", bce: "av. J.-C.", position: "pos.",
    codes: {
      game_over: "La partie est terminée.", bad_event: "Saisie incomprise.", not_your_turn: "Ce n'est pas à ce joueur de jouer.",
      itinerary_required: "Choisissez d'abord un Itinéraire.", no_ancestor_left: "Il ne reste aucune carte Ancêtre.",
      ancestor_cannot_start_trek: "Une carte Ancêtre ne peut pas commencer un Voyage.", unknown_card: "Carte inconnue.",
      card_not_available: "Cette carte n'est pas dans la Rangée.", too_many_crystals: "Pas autant de cristaux.",
      cost_below_one: "Une carte coûte toujours au moins 1 heure.", itinerary_unavailable: "Cet Itinéraire n'est pas disponible.",
      nothing_to_undo: "Rien à annuler.", unknown_tag: "Étiquette inconnue."
    }
  }
};
