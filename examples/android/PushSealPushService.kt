// PushSeal on Android through UnifiedPush (docs/android.md): the service the UnifiedPush connector
// calls with the app's endpoint and with each message, already decrypted with the keys it holds.
//
// Written against the UnifiedPush Android connector 3.x (AND_3.0) as its documentation describes
// it; nothing in this repository compiles it (the tests run the gateway's side: an FCM-shaped
// endpoint, VAPID, and a message opened with the connector's keys). Check the names against the
// connector's release before you copy it.
//
// AndroidManifest.xml:
//   <uses-permission android:name="android.permission.INTERNET" />
//   <uses-permission android:name="android.permission.POST_NOTIFICATIONS" />   <!-- Android 13+: ask at run time too -->
//   <service android:name=".PushSealPushService" android:exported="false">
//     <intent-filter><action android:name="org.unifiedpush.android.connector.PUSH_EVENT" /></intent-filter>
//   </service>
//
// build.gradle: org.unifiedpush.android:connector, and org.unifiedpush.android:embedded-fcm-distributor
// for phones without a distributor (3.x needs no Firebase project and no google-services.json).
package com.example.shop.push

import android.Manifest
import android.app.Activity
import android.app.NotificationChannel
import android.app.NotificationManager
import android.app.PendingIntent
import android.content.Context
import android.content.Intent
import android.net.Uri
import android.os.Build
import androidx.core.app.ActivityCompat
import androidx.core.app.NotificationCompat
import org.json.JSONObject
import org.unifiedpush.android.connector.FailedReason
import org.unifiedpush.android.connector.PushService
import org.unifiedpush.android.connector.UnifiedPush
import org.unifiedpush.android.connector.data.PushEndpoint
import org.unifiedpush.android.connector.data.PushMessage

class PushSealPushService : PushService() {

    // The connector has an endpoint for this app: the push service's URL (FCM's, with the embedded
    // distributor; ntfy's or another distributor's otherwise) and the keys it decrypts with. Send
    // them to your backend, which registers them with pushseal-gateway as a subscription:
    // PUT /v1/devices/{device_id} {"user": …, "subscription": {"endpoint", "keys": {"p256dh", "auth"}}}.
    override fun onNewEndpoint(endpoint: PushEndpoint, instance: String) {
        val keys = endpoint.pubKeySet ?: return // no keys: a distributor older than AND_3, nothing to decrypt with
        val subscription = JSONObject()
            .put("endpoint", endpoint.url)
            .put("keys", JSONObject().put("p256dh", keys.pubKey).put("auth", keys.auth))
        Backend.registerSubscription(applicationContext, subscription) // your app's own call to your backend
    }

    // A message, decrypted by the connector (RFC 8291). pushseal-gateway sends Declarative Web
    // Push's JSON: {"web_push": 8030, "notification": {"title", "body", "navigate", "tag", …}}.
    override fun onMessage(message: PushMessage, instance: String) {
        if (!message.decrypted) return // the gateway always encrypts: anything else is not from it
        val content = JSONObject(String(message.content, Charsets.UTF_8))
        val notification = content.optJSONObject("notification") ?: return
        show(applicationContext, notification)
        // With receipts on the gateway's app, tell it the notification was shown (gateway-v1.md, "Receipts").
        content.optJSONObject("pushseal_receipt")?.let { postReceipt(it) }
    }

    // {"url", "capability"}: POST {"outcome": "displayed"} with the capability as a bearer token.
    // Best effort, off the main thread; the answer is 204, whatever it is the notification stands.
    private fun postReceipt(receipt: JSONObject) = kotlin.concurrent.thread {
        val url = receipt.optString("url")
        if (!url.startsWith("https://")) return@thread
        runCatching {
            val connection = java.net.URL(url).openConnection() as java.net.HttpURLConnection
            connection.requestMethod = "POST"
            connection.connectTimeout = 5_000
            connection.readTimeout = 5_000
            connection.setRequestProperty("Authorization", "Bearer " + receipt.optString("capability"))
            connection.setRequestProperty("Content-Type", "application/json")
            connection.doOutput = true
            connection.outputStream.use { it.write("""{"outcome":"displayed"}""".toByteArray()) }
            connection.responseCode
            connection.disconnect()
        }
    }

    override fun onRegistrationFailed(reason: FailedReason, instance: String) {
        // No distributor, or it refused (VAPID is required by the embedded FCM distributor): try
        // again on the next start.
    }

    override fun onUnregistered(instance: String) {
        Backend.unregister(applicationContext) // DELETE /v1/devices/{device_id} through your backend
    }

    private fun show(context: Context, notification: JSONObject) {
        val manager = context.getSystemService(NotificationManager::class.java)
        manager.createNotificationChannel(NotificationChannel("pushes", "Updates", NotificationManager.IMPORTANCE_DEFAULT))
        val open = Intent(Intent.ACTION_VIEW, Uri.parse(notification.optString("navigate")))
        val builder = NotificationCompat.Builder(context, "pushes")
            .setSmallIcon(android.R.drawable.stat_notify_chat)
            .setContentTitle(notification.optString("title"))
            .setContentText(notification.optString("body"))
            .setStyle(NotificationCompat.BigTextStyle().bigText(notification.optString("body")))
            .setSilent(notification.optBoolean("silent", false))
            .setAutoCancel(true)
            .setContentIntent(PendingIntent.getActivity(context, 0, open, PendingIntent.FLAG_IMMUTABLE))
        if (notification.has("app_badge")) builder.setNumber(notification.getInt("app_badge"))
        // The tag (the push's collapse id) replaces an earlier notification of the same tag.
        manager.notify(notification.optString("tag", null), 0, builder.build())
    }

    companion object {
        // At start, from the Activity's onCreate: ask to show notifications (Android 13+), use the
        // user's distributor (or the embedded FCM one), and register with the gateway's VAPID
        // public key, which your backend reads from GET /v1/webpush/vapid. The distributor is
        // chosen with the Activity as context: with the Application's, the first run never registers.
        fun start(activity: Activity, vapidPublicKey: String) {
            if (Build.VERSION.SDK_INT >= 33) {
                ActivityCompat.requestPermissions(activity, arrayOf(Manifest.permission.POST_NOTIFICATIONS), 0)
            }
            UnifiedPush.tryUseCurrentOrDefaultDistributor(activity) { found ->
                if (found) UnifiedPush.register(activity, vapid = vapidPublicKey)
            }
        }
    }
}

// The app's two calls to its backend, which holds the gateway's token and knows who is signed in.
// The device id is a random UUID made once per install, as on the other platforms.
object Backend {
    private const val DEVICES = "https://api.example.com/devices/"

    fun registerSubscription(context: Context, subscription: JSONObject) =
        send("PUT", DEVICES + deviceID(context), subscription.toString())

    fun unregister(context: Context) = send("DELETE", DEVICES + deviceID(context), null)

    private fun deviceID(context: Context): String {
        val preferences = context.getSharedPreferences("pushseal", Context.MODE_PRIVATE)
        return preferences.getString("device_id", null)
            ?: java.util.UUID.randomUUID().toString().also { preferences.edit().putString("device_id", it).apply() }
    }

    private fun send(method: String, url: String, body: String?) = kotlin.concurrent.thread {
        val connection = java.net.URL(url).openConnection() as java.net.HttpURLConnection
        connection.requestMethod = method
        if (body != null) {
            connection.doOutput = true
            connection.setRequestProperty("Content-Type", "application/json")
            connection.outputStream.use { it.write(body.toByteArray()) }
        }
        connection.responseCode // a failure is retried at the next start, which registers again
        connection.disconnect()
    }
}
